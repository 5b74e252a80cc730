import torch


def pack_int4(values: torch.Tensor) -> torch.Tensor:
    v = values.to(torch.int16) & 0xF            # two's-complement nibble: -1 -> 0xF, -8 -> 0x8
    if v.shape[-1] % 2:
        v = torch.nn.functional.pad(v, (0, 1))  # odd length: the last high nibble is 0
    return (v[..., 0::2] | (v[..., 1::2] << 4)).to(torch.uint8)


def unpack_int4(packed: torch.Tensor, n: int) -> torch.Tensor:
    p = packed.to(torch.int16)
    nibbles = torch.stack([p & 0xF, (p >> 4) & 0xF], dim=-1).flatten(-2)[..., :n]
    return torch.where(nibbles >= 8, nibbles - 16, nibbles).to(torch.int8)  # sign-extend


def int4_pack_unpack(values: torch.Tensor, packed: torch.Tensor, n: int):
    return pack_int4(values), unpack_int4(packed, n)
