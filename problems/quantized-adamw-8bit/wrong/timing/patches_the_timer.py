# expect: accepted
# bench: rejected
# why: computes the right answer, but at import rewires the clocks a timing loop would read: CUDA
#      events report a tenth of the elapsed time and time.perf_counter runs ten times slower. The
#      benchmark holds its own references to the clocks and refuses a run that replaced them
import time

import torch

from infrakata.kernels.adamw8bit import quantized_adamw_step  # noqa: F401 - the entry point

_elapsed_time = torch.cuda.Event.elapsed_time
_perf_counter = time.perf_counter
torch.cuda.Event.elapsed_time = lambda self, end: _elapsed_time(self, end) / 10
time.perf_counter = lambda: _perf_counter() / 10
