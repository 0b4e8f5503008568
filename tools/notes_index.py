#!/usr/bin/env python3
"""Check the index of design notes against the sources.

    tools/notes_index.py INDEX.md ROOT [PATH...]

A note is defined by a line holding only its title, `Note [Name]` (in a
comment or a docstring), or else by comment lines that open with
`Note [Name]:`; it is referred to anywhere as `Note [Name]`. INDEX.md
holds one table row per note, `| [Name] | [`path`](...) |`, with paths
relative to ROOT; PATHs (files or folders under ROOT, default: ROOT) are
searched for C++, CMake and Python sources. Reported, with file and line:
a note defined but not indexed, an index row naming a file that does not
define it, a note defined twice, and a reference to a note defined nowhere.
Exit status 1 when anything is reported.
"""
import pathlib
import re
import sys

SUFFIXES = {".h", ".cpp", ".cu", ".py", ".txt", ".cmake"}
TITLE = re.compile(r"^\s*(?:(?://+|#)\s*)?Note \[([^\]]+)\]\s*$")
OPENING = re.compile(r"^\s*(?://+|#)\s*Note \[([^\]]+)\]:")
REFERENCE = re.compile(r"Note \[([^\]]+)\]")
ROW = re.compile(r"^\|\s*\[([^\]]+)\]\s*\|\s*\[`([^`]+)`\]")


def sources(root, paths):
    itself = pathlib.Path(__file__).resolve()  # its docstring names notes by way of example
    for path in paths:
        path = root / path
        files = [path] if path.is_file() else sorted(path.rglob("*"))
        for f in files:
            if f.is_file() and f.resolve() != itself and (f.suffix in SUFFIXES or f.name == "CMakeLists.txt"):
                yield f


def scan(root, paths):
    """Returns ({name: [(file, line)]} of definitions, [(name, file, line)] of references).

    A title line defines its note; comment lines opening with the note's name
    define it only where no title line does (short notes are written that
    way, and longer ones are pointed to that way from the code they explain)."""
    titles, openings, referred = {}, {}, []
    for f in sources(root, paths):
        rel = f.resolve().relative_to(root.resolve()).as_posix()
        for number, text in enumerate(f.read_text(errors="replace").splitlines(), 1):
            for pattern, found in ((TITLE, titles), (OPENING, openings)):
                m = pattern.match(text)
                if m:
                    found.setdefault(m.group(1), []).append((rel, number))
            referred.extend((name, rel, number) for name in REFERENCE.findall(text))
    defined = {name: titles.get(name) or openings[name] for name in set(titles) | set(openings)}
    return defined, titles, referred


def read_index(index):
    rows = {}
    for number, text in enumerate(index.read_text().splitlines(), 1):
        m = ROW.match(text)
        if m:
            rows[m.group(1)] = (m.group(2), number)
    return rows


def problems(index, root, paths):
    defined, titles, referred = scan(root, paths)
    rows = read_index(index)
    for name, places in sorted(titles.items()):
        if len(places) > 1:
            where = ", ".join(f"{f}:{n}" for f, n in places)
            yield f"{places[0][0]}:{places[0][1]}: Note [{name}] has {len(places)} title lines ({where})"
    for name, places in sorted(defined.items()):
        if name not in rows:
            yield f"{places[0][0]}:{places[0][1]}: Note [{name}] is not in {index.name}"
    for name, (path, number) in sorted(rows.items()):
        files = {f for f, _ in defined.get(name, [])}
        if path not in files:
            actual = f"is defined in {', '.join(sorted(files))}" if files else "is defined nowhere"
            yield f"{index.name}:{number}: [{name}] names {path}, but the note {actual}"
    for name, f, number in referred:
        if name not in defined:
            yield f"{f}:{number}: Note [{name}] is referred to but defined nowhere"


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    index, root = pathlib.Path(argv[1]), pathlib.Path(argv[2])
    paths = [pathlib.Path(p) for p in argv[3:]] or [pathlib.Path(".")]
    missing = [str(p) for p in [index, root] + [root / p for p in paths] if not p.exists()]
    if missing:
        print(f"notes_index: no such file or folder: {', '.join(missing)}", file=sys.stderr)
        return 2
    found = list(problems(index, root, paths))
    for line in found:
        print(line)
    print(f"{len(read_index(index))} notes indexed; {len(found)} problems")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
