# expect: wrong_answer
# why: flattens the whole tensor into one stream of nibbles and pads only at its very end; for
#      a 1-D input or an even row length that is the same, but with an odd row length the pairs
#      straddle rows and every row after the first is shifted by a nibble
import torch


def int4_pack_unpack(values, packed, n):
    lead = values.shape[:-1]
    m = (values.shape[-1] + 1) // 2
    flat = values.reshape(-1).to(torch.int16) & 0xF
    if flat.numel() % 2:
        flat = torch.nn.functional.pad(flat, (0, 1))
    stream = (flat[0::2] | (flat[1::2] << 4)).to(torch.uint8)
    out = torch.zeros(lead.numel() * m, dtype=torch.uint8)
    out[:stream.numel()] = stream
    p = packed.reshape(-1).to(torch.int16)
    nib = torch.stack([p & 0xF, (p >> 4) & 0xF], dim=-1).flatten()
    nib = nib.reshape(*lead, 2 * m)[..., :n] if nib.numel() else nib.reshape(*lead, 0)
    return out.reshape(*lead, m), torch.where(nib >= 8, nib - 16, nib).to(torch.int8)
