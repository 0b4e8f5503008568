"""torchnvjpeg #3: the Decoder made for `device_id` decodes without switching to its device, so its
image is allocated on the current device (the last one used), and a decoder made for another GPU
fails. The fix in the issue: `set_device(device_id)` around decode, then back."""

BUG = {"id": "torchnvjpeg-3", "project": "torchnvjpeg", "issue": "https://github.com/itsliupeng/torchnvjpeg/issues/3",
       "fix": "https://github.com/itsliupeng/torchnvjpeg/issues/3 (the patch in the report)",
       "file": "torchnvjpeg/csrc/torchnvjpeg.cpp", "title": "a decoder allocates on the current device, not its own",
       "class": "wrong index: the current device", "apis": ["trace", "plugin"],
       "expect": ["device_without_index"]}


def scenario(lib, device):
    if device.type == "cpu" or device.index is None:
        return None  # the decoder is for accelerators with an index
    decoder = lib.Decoder(device_id=device.index)
    image = decoder.decode(bytes(range(2 * 3 * 3)), (3, 2, 3))
    assert image.device == device, f"decoded on {image.device}, the decoder is for {device}"
    return image


def two_decoders(lib, count):
    """The project's multi-GPU test: one decoder per device, each decoding onto its own."""
    images = [lib.Decoder(device_id=i).decode(bytes(range(18)), (3, 2, 3)) for i in range(count)]
    for i, image in enumerate(images):
        assert image.device.index == i
    return images
