# SPDX-License-Identifier: Apache-2.0
# Copyright (c) 2026 The qrdma authors
"""RTL rule: what is simulated is what is synthesized (STYLE.md, "SystemVerilog subset").

Scans every file of rtl/ (rtl/manifest.py, and any other .sv under rtl/) for logic that
only one of simulation and synthesis sees:

  simulation-only code   (`ifndef SYNTHESIS, `ifdef VERILATOR, the `else of `ifdef SYNTHESIS)
      may hold checks only:
        - `initial` blocks (elaboration-time parameter checks with $fatal),
        - assert / assume / cover statements, with $error / $fatal / $warning / $info in
          their else branch,
        - the `always_ff` / `always_comb` processes and the if / case / for around them,
        - declarations (logic, localparam, typedef, function, ...) of the checker's own
          signals, and assignments to those signals only (checker state).
      Anything that drives a signal declared outside simulation-only code, a plain
      `always`, an instance, a `parameter`, `$display` / `$write` and system tasks outside
      an assertion's else branch or an initial block are reported.
  synthesis-only code    (`ifdef SYNTHESIS, `ifndef VERILATOR, the `else of `ifndef
      SYNTHESIS) must be empty: it could only be a second implementation.
  anywhere               a `lint_off BLKSEQ` waiver (blocking writes in clocked processes).

  python tools/rtl_rules.py [file ...]   report file:line, the reason and the line; exit 1
                                         on a finding outside PENDING
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Files whose owners are converting them; their findings are reported but do not fail the
# check. A file that has become clean must be removed from here (the rule test says so).
PENDING: dict[str, str] = {}

SIM_MACROS = {"SYNTHESIS": False, "VERILATOR": True}  # macro -> its `ifdef branch is sim-only
TYPE_WORDS = {"logic", "bit", "int", "integer", "byte", "shortint", "longint", "reg", "wire",
              "var", "automatic", "static", "const", "localparam", "typedef", "genvar",
              "real", "string", "unsigned", "signed"}
CHECK_TASKS = {"$error", "$fatal", "$warning", "$info"}
PRINT_TASKS = {"$display", "$write", "$strobe", "$monitor", "$displayb", "$displayh",
               "$displayo"}
ASSERT_WORDS = {"assert", "assume", "cover"}
# statements that act on the design or on time rather than check it
ACTING_WORDS = {"force", "release", "deassign", "wait", "fork", "disable", "#", "->"}


@dataclass
class Finding:
    path: str
    line: int
    reason: str
    text: str

    def __str__(self):
        return f"{self.path}:{self.line}: {self.reason}\n    {self.text.strip()}"


# ------------------------------------------------------------------ lexing
def strip_comments(text: str) -> str:
    """Comments replaced by spaces (newlines kept, so line numbers stay); strings kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text[i] == '"':
            m = re.compile(r'"(\\.|[^"\\\n])*"?').match(text, i)
            out.append(m.group(0))
            i = m.end()
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


TOKEN_RE = re.compile(r"""
    (?P<str>"(\\.|[^"\\\n])*"?)
  | (?P<num>\d*'[sS]?[bBoOdDhH][0-9a-fA-FxXzZ_?]+|'[01xXzZ]|\d[\d_]*(\.\d+)?)
  | (?P<id>[A-Za-z_][A-Za-z0-9_$]*|\$[A-Za-z_][A-Za-z0-9_$]*)
  | (?P<op><<<=|>>>=|<<=|>>=|===|!==|\|->|\|=>|::|\+=|-=|\*=|/=|%=|&=|\|=|\^=|\+\+|--
        |<<|>>|<=|>=|==|!=|&&|\|\||\*\*|->|.)
""", re.X)


def tokens(text: str, first_line: int) -> list[tuple[str, int]]:
    """(token, line) of a region's text whose first line is first_line."""
    out, line, pos = [], first_line, 0
    for m in TOKEN_RE.finditer(text):
        tok = m.group(0)
        if tok.isspace():
            continue
        line += text.count("\n", pos, m.start())
        pos = m.start()
        out.append((tok, line))
    return out


# ------------------------------------------------------------------ regions
def regions(text: str) -> list[tuple[str, int, str]]:
    """(kind, first line, text) of each run of lines that is 'sim' (simulation only) or
    'syn' (synthesis only); comments are already stripped. A line's kind follows from the
    `ifdef / `ifndef / `elsif / `else branches it is in."""
    stack = []  # per open `ifdef: ([(macro, true when defined)], branch index)
    kinds = []
    lines = text.split("\n")
    for ln in lines:
        m = re.match(r"\s*`(ifdef|ifndef|elsif|else|endif)\b\s*(\w*)", ln)
        if m:
            d, macro = m.groups()
            if d in ("ifdef", "ifndef"):
                stack.append(([(macro, d == "ifdef")], 0))
            elif d == "elsif" and stack:
                tests, k = stack[-1]
                stack[-1] = (tests + [(macro, True)], k + 1)
            elif d == "else" and stack:
                stack[-1] = (stack[-1][0], len(stack[-1][0]))
            elif d == "endif" and stack:
                stack.pop()
            kinds.append(None)
            continue
        # what the branch requires of each macro: the earlier tests false, its own true
        need = [(mac, pol == (j == k)) for tests, k in stack
                for j, (mac, pol) in enumerate(tests) if j <= k]
        sides = {"sim" if defined == SIM_MACROS[mac] else "syn"
                 for mac, defined in need if mac in SIM_MACROS}
        kinds.append("syn" if "syn" in sides else "sim" if sides else None)
    out = []
    for i, k in enumerate(kinds):
        if k is None:
            continue
        if out and out[-1][0] == k and out[-1][3] == i - 1:
            out[-1][2].append(lines[i])
            out[-1][3] = i
        else:
            out.append([k, i + 1, [lines[i]], i])
    return [(k, first, "\n".join(body)) for k, first, body, _ in out]


# ------------------------------------------------------------------ the checker's parser
class Parser:
    """Statements and module items of one simulation-only region, parsed just enough to
    know what each one is. Collects declared names and assigned names."""

    def __init__(self, toks, line_text):
        self.t = toks
        self.i = 0
        self.line_text = line_text
        self.declared: set[str] = set()
        self.assigned: list[tuple[str, int]] = []
        self.bad: list[tuple[int, str]] = []

    # -- helpers
    def peek(self, k=0):
        j = self.i + k
        return self.t[j][0] if j < len(self.t) else ""

    def line(self):
        return self.t[min(self.i, len(self.t) - 1)][1]

    def take(self, want=None):
        tok = self.peek()
        if want is not None and tok != want:
            raise SyntaxError(f"expected '{want}', found '{tok or 'end of region'}'")
        self.i += 1
        return tok

    def skip_balanced(self):
        """Skip a ( ... ) group; the current token is '('."""
        depth = 0
        while self.i < len(self.t):
            tok = self.take()
            depth += tok in "([{" and len(tok) == 1
            depth -= tok in ")]}" and len(tok) == 1
            if depth == 0:
                return
        raise SyntaxError("unbalanced parentheses")

    def skip_to_semicolon(self):
        depth = 0
        while self.i < len(self.t):
            tok = self.take()
            if len(tok) == 1 and tok in "([{":
                depth += 1
            elif len(tok) == 1 and tok in ")]}":
                depth -= 1
            elif tok == ";" and depth == 0:
                return
        raise SyntaxError("missing ';'")

    def report(self, line, reason):
        self.bad.append((line, reason))

    # -- items
    def items(self):
        while self.i < len(self.t):
            start = self.i
            try:
                self.item(ctx=frozenset())
            except SyntaxError as e:
                self.report(self.t[start][1], f"not understood by the rule checker ({e})")
                self.skip_after_error()

    def skip_after_error(self):
        while self.i < len(self.t) and self.peek() not in (";", "end"):
            self.i += 1
        self.i += 1

    def item(self, ctx):
        """One module item or procedural statement. ctx: 'initial', 'action' (an
        assertion's else branch), 'proc' (inside a process)."""
        tok, line = self.peek(), self.line()
        nxt = self.peek(1)
        if tok == ";":
            self.take()
        elif tok == "begin":
            self.take()
            if self.peek() == ":":
                self.take(), self.take()
            while self.peek() != "end":
                if not self.peek():
                    raise SyntaxError("missing 'end'")
                self.item(ctx)
            self.take()
            if self.peek() == ":":
                self.take(), self.take()
        elif tok == "initial":
            self.take()
            self.item(ctx | {"initial", "proc"})
        elif tok in ("always_ff", "always_comb"):
            self.take()
            if self.peek() == "@":
                self.take()
                if self.peek() == "(":
                    self.skip_balanced()
                else:
                    self.take()
            self.item(ctx | {"proc"})
        elif tok in ("always", "always_latch", "final"):
            self.report(line, f"'{tok}' in simulation-only code (checks use always_ff, "
                              "always_comb or initial)")
            self.take()
            if self.peek() == "@":
                self.take()
                self.skip_balanced() if self.peek() == "(" else self.take()
            self.item(ctx | {"proc"})
        elif tok == "if":
            self.take()
            self.skip_balanced()
            self.item(ctx)
            if self.peek() == "else":
                self.take()
                self.item(ctx)
        elif tok in ("unique", "unique0", "priority") and nxt in ("case", "casez", "casex", "if"):
            self.take()
            self.item(ctx)
        elif tok in ("case", "casez", "casex"):
            self.take()
            self.skip_balanced()
            while self.peek() != "endcase":
                if not self.peek():
                    raise SyntaxError("missing 'endcase'")
                if self.peek() == "default":
                    self.take()
                    if self.peek() == ":":
                        self.take()
                else:
                    while self.peek() != ":":
                        if self.peek() == "(":
                            self.skip_balanced()
                        else:
                            self.take()
                    self.take()
                self.item(ctx)
            self.take()
        elif tok in ("for", "foreach", "while", "repeat"):
            self.take()
            self.skip_balanced()
            self.item(ctx)
        elif tok in ASSERT_WORDS or (nxt == ":" and self.peek(2) in ASSERT_WORDS):
            if nxt == ":":
                self.take(), self.take()
            self.take()
            while self.peek() in ("property", "final", "#", "0"):
                self.take()
            self.skip_balanced()
            if self.peek() != "else":
                self.item(ctx | {"action"})
            if self.peek() == "else":
                self.take()
                self.item(ctx | {"action"})
        elif tok in ("function", "task"):
            self.function(tok)
        elif tok in ACTING_WORDS:
            self.report(line, f"'{tok}' in simulation-only code: it acts on the design")
            self.skip_to_semicolon()
        elif tok == "parameter":
            self.report(line, "a parameter in simulation-only code: the design would differ")
            while self.peek() not in (";", ",", ""):   # in a parameter list: up to ','
                self.skip_balanced() if self.peek() in ("(", "[", "{") else self.take()
            self.take()
        elif tok.startswith("$"):
            self.system_task(ctx)
        elif tok == "assign":
            self.take()
            self.assignment(line, ctx)
        elif tok in TYPE_WORDS or (re.match(r"\w+$", tok) and re.match(r"\w+$", nxt)
                                   and self.peek(2) in (";", ",", "=", "[")) \
                or (nxt == "::" and self.peek(3) not in ("(",)):
            self.declaration()
        elif re.match(r"[A-Za-z_]\w*$", tok) and (nxt in ("#", "(") or re.match(r"\w+$", nxt)):
            self.report(line, "an instance or call in simulation-only code")
            self.skip_to_semicolon()
        else:
            self.assignment(line, ctx)

    def function(self, kw):
        end = "end" + kw
        self.take()
        name = None
        while self.peek() not in ("(", ";"):
            if not self.peek():
                raise SyntaxError(f"missing '{end}'")
            name = self.take()
        if name:
            self.declared.add(name)
        while self.peek() != end:
            if not self.peek():
                raise SyntaxError(f"missing '{end}'")
            if self.peek() in PRINT_TASKS:
                self.report(self.line(), f"{self.peek()} in simulation-only code")
            self.take()
        self.take()

    def system_task(self, ctx):
        tok, line = self.take(), self.t[self.i - 1][1]
        if tok in PRINT_TASKS:
            self.report(line, f"{tok} in simulation-only code: a violation is an assertion "
                              "(assert (...) else $error(...)), not a printed message")
        elif tok not in CHECK_TASKS:
            self.report(line, f"{tok} in simulation-only code")
        elif not ({"action", "initial"} & ctx):
            self.report(line, f"{tok} outside an assertion's else branch: write "
                              "assert (...) else " + tok + "(...)")
        if self.peek() == "(":
            self.skip_balanced()
        self.take(";")

    def declaration(self):
        """Records the names a declaration declares (logic a, b = x, c [N]; typedef ... t;)."""
        is_typedef = self.peek() == "typedef"
        depth, expect_name, last_id = 0, True, None
        while True:
            tok = self.take()
            if not tok:
                raise SyntaxError("missing ';'")
            if len(tok) == 1 and tok in "([{":
                depth += 1
            elif len(tok) == 1 and tok in ")]}":
                depth -= 1
            elif depth == 0 and tok == ";":
                break
            elif depth == 0 and tok == "=":
                expect_name = False
            elif depth == 0 and tok == ",":
                expect_name = True
            elif depth == 0 and re.match(r"[A-Za-z_]\w*$", tok) and tok not in TYPE_WORDS:
                last_id = tok
                if expect_name and self.peek() in (";", ",", "=", "["):
                    self.declared.add(tok)
        if is_typedef and last_id:
            self.declared.add(last_id)

    def assignment(self, line, ctx):
        """lhs = expr; / lhs <= expr; / lhs op= expr; / lhs++; -- records the assigned name."""
        start = self.i
        lhs_names = []
        depth = 0
        while True:
            tok = self.peek()
            if not tok:
                raise SyntaxError("missing ';'")
            if depth == 0 and tok in ("=", "<=", "+=", "-=", "*=", "/=", "%=", "&=", "|=",
                                      "^=", "<<=", ">>=", "++", "--", ";"):
                break
            if len(tok) == 1 and tok in "([{":
                depth += 1
            elif len(tok) == 1 and tok in ")]}":
                depth -= 1
            elif re.match(r"[A-Za-z_]\w*$", tok) and (depth == 0 or self.t[start][0] == "{") \
                    and self.t[self.i - 1][0] != ".":
                lhs_names.append(tok)
            self.take()
        if self.peek() == ";" or not lhs_names:
            raise SyntaxError("not a statement the rule checker knows")
        targets = lhs_names if self.t[start][0] == "{" else lhs_names[:1]
        for name in targets:
            self.assigned.append((name, line))
        self.skip_to_semicolon()


def scan_text(text: str, path: str = "<text>") -> list[Finding]:
    """Findings of one file's text."""
    raw_lines = text.split("\n")
    findings = []
    for i, ln in enumerate(raw_lines):
        if re.search(r"lint_off\s+BLKSEQ", ln):
            findings.append(Finding(path, i + 1, "BLKSEQ waived: blocking writes in a "
                                    "clocked process (simulation and synthesis differ)", ln))
    clean = strip_comments(text)
    declared, assigned, bad = set(), [], []
    for kind, first, body in regions(clean):
        toks = tokens(body, first)
        if not toks:
            continue
        if kind == "syn":
            for ln in sorted({l for _, l in toks}):
                bad.append((ln, "synthesis-only code (Verilator never runs it): a second "
                                "implementation"))
            continue
        p = Parser(toks, raw_lines)
        p.items()
        declared |= p.declared
        assigned += p.assigned
        bad += p.bad
    for name, ln in assigned:
        if name not in declared:
            bad.append((ln, f"simulation-only code drives '{name}', which is not the "
                            "checker's own signal (declared outside simulation-only code)"))
    for ln, reason in sorted(bad):
        findings.append(Finding(path, ln, reason, raw_lines[ln - 1]))
    return sorted(findings, key=lambda f: f.line)


def rtl_files() -> list[str]:
    """Every RTL file: those registered in rtl/manifest.py and any other .sv under rtl/."""
    sys.path.insert(0, str(ROOT))
    from rtl import manifest

    files = {f for t in manifest.TOPS.values() for f in t.files if f.startswith("rtl/")}
    files |= {str(p.relative_to(ROOT)) for p in (ROOT / "rtl").rglob("*.sv")}
    return sorted(files)


def scan(files=None) -> list[Finding]:
    out = []
    for f in files or rtl_files():
        out += scan_text((ROOT / f).read_text(), f)
    return out


def main(argv) -> int:
    findings = scan(argv[1:] or None)
    failing = [f for f in findings if f.path not in PENDING]
    for f in findings:
        tag = f"  [pending: {PENDING[f.path]}]" if f.path in PENDING else ""
        print(f"{f}{tag}")
    n_pending = len(findings) - len(failing)
    print(f"rtl rules: {len(failing)} finding(s)"
          + (f", {n_pending} in files pending conversion" if n_pending else ""))
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
