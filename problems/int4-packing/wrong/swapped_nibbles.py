# expect: wrong_answer
# why: puts the first element of each pair in the HIGH nibble (and reads it back from there);
#      its own round trip works, but the bytes are not the documented layout, so buffers packed
#      by anyone else unpack in the wrong order
import torch


def int4_pack_unpack(values, packed, n):
    v = values.to(torch.int16) & 0xF
    if v.shape[-1] % 2:
        v = torch.nn.functional.pad(v, (0, 1))
    out = ((v[..., 0::2] << 4) | v[..., 1::2]).to(torch.uint8)
    p = packed.to(torch.int16)
    nib = torch.stack([(p >> 4) & 0xF, p & 0xF], dim=-1).flatten(-2)[..., :n]
    return out, torch.where(nib >= 8, nib - 16, nib).to(torch.int8)
