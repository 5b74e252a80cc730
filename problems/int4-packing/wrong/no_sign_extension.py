# expect: wrong_answer
# why: packs correctly but unpacks each nibble as an unsigned number 0..15: every negative
#      value comes back 16 too large (-1 -> 15, -8 -> 8)
import torch


def int4_pack_unpack(values, packed, n):
    v = values.to(torch.int16) & 0xF
    if v.shape[-1] % 2:
        v = torch.nn.functional.pad(v, (0, 1))
    out = (v[..., 0::2] | (v[..., 1::2] << 4)).to(torch.uint8)
    p = packed.to(torch.int16)
    nib = torch.stack([p & 0xF, (p >> 4) & 0xF], dim=-1).flatten(-2)[..., :n]
    return out, nib.to(torch.int8)
