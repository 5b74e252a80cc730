"""Records calls of a solution with core/sandbox/trace.py in this interpreter, without a worker, and
prints the recordings as JSON: how tests/sandbox/test_trace.py checks the sys.monitoring backend under a
Python 3.12+ that has no torch. Usage: PYTHONPATH=<a folder holding infrakata/core> python
trace_probe.py BACKEND < {"source", "entry_point", "calls": [[args, snapshot]]}"""

import json
import sys
from dataclasses import asdict

from infrakata.core.sandbox import trace

request = json.load(sys.stdin)
module: dict = {"__name__": "solution"}
code = compile(request["source"], "/solution.py", "exec")
exec(code, module)
entry = module[request["entry_point"]]
trace.loaded(request["source"], code, entry, request["entry_point"])
recordings = []
for args, watch in request["calls"]:
    started = trace.start("values", tuple(args), {}, tuple(watch), backend=sys.argv[1])
    returned = entry(*args)
    recordings.append({"returned": returned, **asdict(trace.stop(started))})
print(json.dumps({"backend": type(started[1]).__name__, "recordings": recordings}))
