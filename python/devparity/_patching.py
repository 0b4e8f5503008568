"""Attributes of torch replaced while a block runs, and put back as they were after it."""

import contextlib


@contextlib.contextmanager
def patched(replacements):
    """Sets each (owner, name, replacement) while the block runs. Afterwards an attribute the owner
    held itself gets its value back, and one it inherited (torch.Tensor's C methods) loses the
    owner's own entry, so that lookups find the inherited one again."""
    saved = []
    try:
        for owner, name, replacement in replacements:
            saved.append((owner, name, name in vars(owner), vars(owner).get(name)))
            setattr(owner, name, replacement)
        yield
    finally:
        for owner, name, own, original in reversed(saved):
            if own:
                setattr(owner, name, original)
            else:
                delattr(owner, name)
