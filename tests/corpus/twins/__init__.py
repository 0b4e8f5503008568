"""Device bugs from the public record, each a faulty and a fixed twin (tests/corpus/README.md).

`<project>_<number>_<what>/` holds `faulty.py` (the code as it was, reduced to the mechanism) and
`fixed.py` (after the real fix), with BUG (where it comes from, how a maintainer exercises it,
what devparity must report) and `scenario(lib, device)` (what the project's own test does) in its
`__init__.py`. Where the real code says "cuda", a twin says `accel()`: the simulated device's type.
"""
