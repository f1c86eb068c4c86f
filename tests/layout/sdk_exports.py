#!/usr/bin/env python3
"""sdk_exports.py [--private DIR]... INCLUDE_DIR LIBMCF [NM] — libmcf exports exactly the
SDK's functions.

INCLUDE_DIR is the folder that holds mcf/*.h (core/sdk/include), LIBMCF the built shared
library.  Each --private DIR is a folder of mcf/*.h that is not installed but whose
functions libmcf exports all the same: core/sdk/abi1, ABI 1's helpers (mcf 0.1-0.8), which
the plugins built with them still call; its headers are read as the public ones are.
Fails (exit 1), naming each offender, when
  (a) a function declared at file scope in a public header mcf/*.h lacks MCF_API (static
      inline helpers, typedefs and struct members are not declarations of libmcf's
      functions and are skipped; MCF_EXPORT marks the plugin's own entry point);
  (b) `nm -D --defined-only LIBMCF` shows an mcfi_ symbol, or any symbol that no public
      header declares (libmcf is built with hidden visibility: only MCF_API is exported;
      the linker's _init, _fini, _edata, _end and the toolchain's reserved __x and _X names
      are not ours);
  (c) a function declared with MCF_API is not exported (a declaration without a definition,
      or a definition that lost its visibility).
A function that a header renames for ABI 2 (`#define mcf_fermion_bind mcf_fermion_bind_v2`,
seen by a source with MCF_WANT_ABI 2) is declared under both names: (b) accepts and (c)
wants both symbols.
`--list HEADER...` prints the declarations found (name, MCF_API or not), for a look.
"""
import os
import re
import subprocess
import sys

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def strip_comments(text):
    """The text with comments and string/char literals blanked (newlines kept)."""
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
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (j - i - 1) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def declarations(path):
    """(name, line, has_mcf_api) of every function declared at file scope in a header."""
    text = strip_comments(open(path, encoding="utf-8").read())
    lines = text.split("\n")
    # preprocessor lines (with their continuations) and the extern "C" wrapper are not C
    # statements of the header's own
    clean = []
    cont = False
    prev = ""  # the previous non-blank line, stripped
    for ln in lines:
        s = ln.strip()
        if cont or s.startswith("#"):
            cont = s.endswith("\\")
            clean.append("")
        elif re.fullmatch(r'extern\s+"\s*"\s*\{', s) or (s == "}" and prev == "#ifdef __cplusplus"):
            clean.append("")
        else:
            clean.append(ln)
        if s:
            prev = " ".join(s.split())
    found = []
    depth = 0
    stmt, stmt_line = [], None
    for lineno, ln in enumerate(clean, 1):
        for ch in ln:
            if depth == 0 and stmt_line is None and not ch.isspace():
                stmt_line = lineno
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    # the end of a struct, enum or initializer goes on to its ';'; the end
                    # of a function's body (an inline helper) ends the statement
                    before = "".join(stmt).split("{")[0]
                    if "(" in before and "=" not in before:
                        stmt, stmt_line = [], None
                        continue
            if depth == 0 and ch == ";":
                decl = classify("".join(stmt))
                if decl:
                    found.append((decl[0], stmt_line, decl[1]))
                stmt, stmt_line = [], None
                continue
            stmt.append(ch)
        stmt.append("\n")
    return found


def classify(stmt):
    """(name, has_mcf_api) when stmt declares a function, else None."""
    s = " ".join(stmt.split())
    if not s or "{" in s:
        return None
    if re.match(r"(typedef|static|struct|enum|union)\b", s) and not re.match(
            r"(struct|enum|union)\s+\w+\s*\*?\s*\w+\s*\(", s):
        return None
    head = s.split("(", 1)[0]
    if "(" not in s or "=" in head:
        return None
    words = IDENT.findall(head)
    if not words:
        return None
    name = words[-1]
    if head.rstrip().endswith("*") or name in ("__attribute__",):
        return None
    return name, "MCF_API" in words


def renames(path):
    """{name: alias} of the headers' `#define name alias` lines (ABI 2's _v2 symbols)."""
    out = {}
    for ln in open(path, encoding="utf-8"):
        m = re.match(r"\s*#\s*define\s+(mcf_\w+)\s+(mcf_\w+_v2)\s*$", ln)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def exported(lib, nm):
    out = subprocess.run([nm, "-D", "--defined-only", lib], check=True,
                         capture_output=True, text=True).stdout
    syms = {}
    for ln in out.splitlines():
        parts = ln.split()
        if len(parts) >= 3:
            syms[parts[2].split("@")[0]] = parts[1]
    return syms


def main(argv):
    if len(argv) >= 2 and argv[1] == "--list":
        for h in argv[2:]:
            for name, line, api in declarations(h):
                print(f"{h}:{line}: {name} {'MCF_API' if api else '-'}")
        return 0
    private = []
    rest = [argv[0]]
    k = 1
    while k < len(argv):
        if argv[k] == "--private" and k + 1 < len(argv):
            private.append(argv[k + 1])
            k += 2
        else:
            rest.append(argv[k])
            k += 1
    argv = rest
    if len(argv) not in (3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    inc, lib = argv[1], argv[2]
    nm = argv[3] if len(argv) == 4 else "nm"
    headers = []
    for d in [inc] + private:
        hdir = os.path.join(d, "mcf")
        headers += sorted(os.path.join(hdir, f) for f in os.listdir(hdir) if f.endswith(".h"))
    fail = 0
    declared = {}
    alias = {}
    for h in headers:
        alias.update(renames(h))
    for h in headers:
        for name, line, api in declarations(h):
            declared[name] = api
            if name in alias:
                declared[alias[name]] = api
            if not api:
                print(f"FAIL (a): {h}:{line}: {name} is declared without MCF_API")
                fail = 1
    syms = exported(lib, nm)
    # the linker's own symbols of every shared object, and the toolchain's reserved names
    # (__x, _X: e.g. __start___sancov_pcs of a -fsanitize=fuzzer-no-link build)
    linker = {"_init", "_fini", "_edata", "_end"}
    for sym, kind in sorted(syms.items()):
        if sym in linker or re.match(r"_[_A-Z]", sym):
            continue
        if sym.startswith("mcfi_"):
            print(f"FAIL (b): {lib} exports the internal {sym} ({kind})")
            fail = 1
        elif sym not in declared:
            print(f"FAIL (b): {lib} exports {sym} ({kind}), which no header declares")
            fail = 1
    for name, api in sorted(declared.items()):
        if api and syms.get(name) not in ("T", "W", "i"):
            print(f"FAIL (c): {name} is declared with MCF_API but {lib} does not export it")
            fail = 1
    n_api = sum(1 for a in declared.values() if a)
    print(f"{len(headers)} headers, {len(declared)} functions declared ({n_api} with MCF_API), "
          f"{len(syms)} symbols exported")
    if n_api == 0 or len(syms) == 0:
        print("FAIL: found nothing to compare (no declarations or no exported symbols)")
        fail = 1
    return fail


if __name__ == "__main__":
    sys.exit(main(sys.argv))
