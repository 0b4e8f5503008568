#!/usr/bin/env python3
"""List the longest function bodies in C++ sources.

    tools/longest_functions.py [--limit N] [--top K] [PATH...]   (default: harness tools)

A function is a brace block opened after a parameter list ')' (optionally
followed by const, override, noexcept, an initialiser list or a trailing
return type) at namespace or class level; lambdas and control blocks count
toward the function that holds them. Lines are counted from the signature's
first line to the closing brace. Exit status 1 when any function is longer
than --limit (default 80), so CI can hold the line.
"""
import argparse
import pathlib
import re
import sys

SIGNATURE_END = re.compile(r"\)\s*(const\s*)?(noexcept\s*)?(override\s*)?(final\s*)?(->\s*[\w:<>,\s*&]+)?\s*$|"
                           r"\)\s*:\s*[\w:]+[({]|^\s*:\s*\w+[({]|^\s*,\s*\w+[({]")
CONTROL = re.compile(r"^\s*(\}\s*)?(if|for|while|switch|catch|else|do|try)\b")


def strip(text):
    """Removes comments and string/char literals, keeping line breaks."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        elif text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            end = text.find(")" + m.group(1) + '"', i) if m else -1
            j = n if end < 0 else end + len(m.group(1)) + 2
            out.append('""' + "\n" * text.count("\n", i, j))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    lines = strip(path.read_text(errors="replace")).split("\n")
    depth, stack, found = 0, [], []
    # stack entries: (depth before the brace, start line, name) for function bodies
    for number, line in enumerate(lines, 1):
        for k, c in enumerate(line):
            if c == "{":
                head = line[:k]
                start = number
                # the signature may span lines: look back for its first line
                text = head
                back = number - 1
                while not text.strip() and back > 0:
                    back -= 1
                    text = lines[back]
                    start = back + 1
                is_function = (not stack and SIGNATURE_END.search(text.rstrip())
                               and not CONTROL.match(text) and "=" not in text.split("(")[0]
                               and not re.search(r"\b(class|struct|namespace|enum|union)\b", text))
                if is_function:
                    while start > 1 and lines[start - 2].strip() and not re.search(r"[;{}]\s*$", lines[start - 2]) \
                            and not lines[start - 2].lstrip().startswith(("#", "template")):
                        start -= 1
                    name = re.findall(r"([~\w:]+)\s*\(", " ".join(lines[start - 1:number]))
                    stack.append((depth, start, name[0] if name else "?"))
                depth += 1
            elif c == "}":
                depth -= 1
                if stack and stack[-1][0] == depth:
                    d, start, name = stack.pop()
                    found.append((number - start + 1, str(path), start, name))
    return found


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=80)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("paths", nargs="*", default=["harness", "tools"])
    args = parser.parse_args(argv)
    found = []
    for root in args.paths:
        p = pathlib.Path(root)
        files = [p] if p.is_file() else sorted(list(p.rglob("*.cpp")) + list(p.rglob("*.h")))
        for f in files:
            found.extend(functions(f))
    found.sort(reverse=True)
    for length, path, line, name in found[: args.top]:
        print(f"{length:5d}  {path}:{line}  {name}")
    over = [f for f in found if f[0] > args.limit]
    print(f"{len(found)} functions; {len(over)} over {args.limit} lines")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
