import torch


def pack_int4(values: torch.Tensor) -> torch.Tensor:
    """values: int8 tensor [..., n], every element in -8..7.

    Returns uint8 [..., ceil(n / 2)]: byte j of a row holds element 2j in its low nibble (bits 0-3)
    and element 2j+1 in its high nibble (bits 4-7), each as a 4-bit two's-complement number
    (-1 -> 0xF, -8 -> 0x8). When n is odd, the high nibble of a row's last byte is 0.
    """
    raise NotImplementedError


def unpack_int4(packed: torch.Tensor, n: int) -> torch.Tensor:
    """packed: uint8 [..., ceil(n / 2)] in the layout above. Returns int8 [..., n] in -8..7."""
    raise NotImplementedError


def int4_pack_unpack(values: torch.Tensor, packed: torch.Tensor, n: int):
    """Returns (pack_int4(values), unpack_int4(packed, n)); packed is a separate buffer, not
    pack_int4(values). No input may be modified."""
    return pack_int4(values), unpack_int4(packed, n)
