import devparity_absent_module  # noqa: F401 - an optional dependency not installed: a collection error

def test_never_collected():
    pass
