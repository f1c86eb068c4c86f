#!/usr/bin/env python3
"""file_graph.py SRC [--show] — no circle of files in core, plugins, models and cuda.

A node is a concept: a source file together with its same-named header (x.c with x.h,
x.cu with x.h or x.cuh; an SDK header core/sdk/include/mcf/x.h with core/sdk/x.c; a header
in core/engine/include with the engine's file of its name).  A file without a partner is a
node of its own.  A -> B when a file of A
  * includes a header of B (#include "..." resolved beside the includer, then under the
    include folders core/sdk/include, core/sdk/abi1 and core/engine/include, then by a
    name that only one file in the folders checked has; <mcf/...> likewise) - unless that
    header declares a function the including file defines: a family's shared header
    (setup.h for section.c, internal.h for config.c) is that file's own interface too; or
  * calls a function of B: a name followed by '(' (or a kernel's '<<<') inside braces
    (comments, strings and preprocessor lines are not read; the file's own functions are
    not followed).  A function is the concept's whose header declares it when that header
    is a concept's (x.h beside x.c speaks for every file whose functions it declares);
    else (a header without a file of its name: internal.h, mcf_engine.h, a plugin's
    *_internal.h) it is the concept's whose file defines it (not static; a name that two
    files define is left out).
Exit 1, naming every circle found (A -> B -> ... -> A, each step with its reason), when the
graph has one; 0 otherwise.  --show prints every edge with its reason.
"""
import os
import re
import sys

FOLDERS_TOP = ["core", "models", "plugins", "cuda"]
EXTS = (".c", ".h", ".cu", ".cuh", ".inc")
INCLUDE_DIRS = ["core/sdk/include", "core/sdk/abi1", "core/engine/include", "core/include"]
# not functions: what may stand before '(' in a definition's head or a body
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined", "__attribute__",
            "__declspec", "__launch_bounds__", "alignof", "_Alignof", "alignas",
            "_Alignas", "typeof", "__typeof__", "offsetof", "_Static_assert",
            "static_assert", "__asm__", "asm", "case", "do", "else", "goto"}
IDENT_CALL = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*)\s*(\(|<<<)")


def strip(text):
    """Comments, string and character literals blanked; preprocessor lines (with their
    continuations) blanked too, except that #include lines are kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j]) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    lines = "".join(out).split("\n")
    cont = False
    for k, ln in enumerate(lines):
        s = ln.strip()
        if cont or s.startswith("#"):
            cont = s.endswith("\\")
            lines[k] = ""
    return "\n".join(lines)


def includes(text):
    """The names of the quoted (and <mcf/...>, <mcfe/...>) includes of a file."""
    found = re.findall(r'^\s*#\s*include\s+"([^"]+)"', text, re.M)
    found += re.findall(r"^\s*#\s*include\s+<((?:mcf|mcfe)/[^>]+)>", text, re.M)
    return found


def node_of(path):
    """The node (concept) a file belongs to."""
    d, base = os.path.split(path)
    stem = base.split(".")[0]
    for inc in INCLUDE_DIRS:
        if d.startswith(inc + "/"):
            return os.path.dirname(inc) + "/" + stem
    return d + "/" + stem


def functions(stripped):
    """(defined, declared, called): the functions a file defines at file scope (not static),
    the functions it declares at file scope (prototypes, and definitions in a header), and
    the names it calls inside braces."""
    defined, declared, called = set(), set(), set()
    depth = 0
    head = []
    pos = 0
    for m in re.finditer(r"[{};]", stripped):
        ch = m.group(0)
        seg = stripped[pos:m.start()]
        pos = m.end()
        if depth == 0:
            head.append(seg)
            h = " ".join("".join(head).split())
            if ch == "{" and re.fullmatch(r'extern " *"', h):
                head = []  # extern "C" { ... }: its contents stay at file scope
                continue
            name = None
            lead = h.split("(")[0]
            if "(" in h and "=" not in lead and not re.search(r"\(\s*\*", h.split(")")[0]):
                names = [x for x, _ in IDENT_CALL.findall(h) if x not in KEYWORDS]
                words = re.findall(r"[A-Za-z_]\w*", lead)
                if names and "typedef" not in words:
                    name = names[0]
            if name and ch == "{":
                declared.add(name)
                if "static" not in re.findall(r"[A-Za-z_]\w*", lead):
                    defined.add(name)
            elif name and ch == ";":
                declared.add(name)
            head = []
            if ch == "{":
                depth = 1
        else:
            for name, _ in IDENT_CALL.findall(seg):
                if name not in KEYWORDS:
                    called.add(name)
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
    return defined, declared, called


def find_circles(edges):
    """Elementary circles through the strongly connected parts (one per part and per
    node at least; enough to name what is wrong)."""
    index, low, stack, on, parts = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.remove(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                parts.append(sorted(part))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    circles = []
    for part in parts:
        members = set(part)
        seen = set()
        for start in part:
            # the shortest way back to start inside the part
            prev = {start: None}
            queue = [start]
            found = None
            while queue and not found:
                nxt = []
                for v in queue:
                    for w in sorted(edges.get(v, ())):
                        if w not in members:
                            continue
                        if w == start:
                            found = v
                            break
                        if w not in prev:
                            prev[w] = v
                            nxt.append(w)
                    if found:
                        break
                queue = nxt
            if not found:
                continue
            path = [found]
            while prev[path[-1]] is not None:
                path.append(prev[path[-1]])
            path.reverse()
            key = frozenset(path)
            if key not in seen:
                seen.add(key)
                circles.append(path + [start])
    return circles


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    src = argv[1]
    show = "--show" in argv[2:]
    os.chdir(src)
    files = []
    for top in FOLDERS_TOP:
        for root, dirs, names in os.walk(top):
            dirs.sort()
            for name in sorted(names):
                if name.endswith(EXTS):
                    files.append(os.path.join(root, name))
    by_name = {}
    for f in files:
        by_name.setdefault(os.path.basename(f), []).append(f)
    texts = {f: open(f, encoding="utf-8", errors="replace").read() for f in files}
    edges, why = {}, {}

    def add(a, b, reason):
        if a != b:
            edges.setdefault(a, set()).add(b)
            why.setdefault((a, b), reason)

    # a call goes to the concept whose file defines the function (not static); a name the
    # caller's file declares static itself, or that two files define, is not followed
    definers, calls, local, declared_in, defined_in = {}, {}, {}, {}, {}
    for f in files:
        d, decl, c = functions(strip(texts[f]))
        declared_in[f], defined_in[f] = decl, d
        for name in d:
            definers.setdefault(name, set()).add(node_of(f))
        local[f] = decl - d
        calls[f] = c
    for f in files:
        edges.setdefault(node_of(f), set())
        for inc in includes(texts[f]):
            target = None
            beside = os.path.normpath(os.path.join(os.path.dirname(f), inc))
            if beside in texts:
                target = beside
            else:
                for d in INCLUDE_DIRS:
                    p = os.path.join(d, inc)
                    if p in texts:
                        target = p
                        break
            if target is None and "/" not in inc and len(by_name.get(inc, [])) == 1:
                target = by_name[inc][0]
            # a header that declares functions this file defines is its own interface too
            # (a family's shared header, like setup.h for axes.c): no edge
            if target is not None and not (declared_in[target] & defined_in[f]):
                add(node_of(f), node_of(target), f"{f} includes {inc}")

    # whose a called function is: the concept whose header declares it, when that header
    # is a concept's (x.h beside x.c: setup.h speaks for axes.c, whose functions it
    # declares); else (a family's header without a file of its name, like internal.h) the
    # concept whose file defines it
    concepts = {node_of(f) for f in files if f.endswith((".c", ".cu"))}
    declarer = {}
    for f in files:
        if f.endswith((".h", ".cuh")) and node_of(f) in concepts:
            for name in declared_in[f]:
                declarer.setdefault(name, set()).add(node_of(f))
    for f in files:
        for name in sorted(calls[f]):
            if f.endswith((".c", ".cu")) and (name in local[f] or name in defined_in[f]):
                continue  # the file's own function
            defs = definers.get(name, set())
            decl = declarer.get(name, set())
            if defs and len(defs) == 1 and next(iter(defs)) in decl:
                owner = next(iter(defs))
            elif len(decl) == 1:
                owner = next(iter(decl))
            elif len(defs) == 1:
                owner = next(iter(defs))
            else:
                continue
            add(node_of(f), owner, f"{f} calls {name}()")

    if show:
        for (a, b), reason in sorted(why.items()):
            print(f"{a} -> {b}: {reason}")
    circles = find_circles(edges)
    for c in circles:
        print("FAIL (b): a circle of files: " + " -> ".join(c))
        for a, b in zip(c, c[1:]):
            print(f"    {a} -> {b}: {why[(a, b)]}")
    n_edges = sum(len(v) for v in edges.values())
    print(f"{len(edges)} nodes, {n_edges} edges, {len(circles)} circles")
    return 1 if circles else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
