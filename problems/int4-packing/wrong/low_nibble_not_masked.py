# expect: wrong_answer
# why: masks the high element before shifting it but ORs the low element in unmasked; a
#      negative int8 such as -2 = 0b11111110 carries its sign bits into the high nibble, so any
#      byte whose low element is negative reads 0xF in its high nibble
import torch


def int4_pack_unpack(values, packed, n):
    v = values.to(torch.int16)
    if v.shape[-1] % 2:
        v = torch.nn.functional.pad(v, (0, 1))
    out = ((v[..., 0::2] | ((v[..., 1::2] & 0xF) << 4)) & 0xFF).to(torch.uint8)
    p = packed.to(torch.int16)
    nib = torch.stack([p & 0xF, (p >> 4) & 0xF], dim=-1).flatten(-2)[..., :n]
    return out, torch.where(nib >= 8, nib - 16, nib).to(torch.int8)
