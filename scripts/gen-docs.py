#!/usr/bin/env python3
"""Writes the man page and the bash completion of KioskCards from its own --help output.

Usage: scripts/gen-docs.py --man OUT.1 --completion OUT [--date YYYY-MM-DD] -- COMMAND...
COMMAND is how to run the binary (e.g. `.build/release/KioskCards`, or a qemu wrapper).

Tolerant on purpose: the help texts are being unified, so it reads `KioskCards --help` for the
command list (any indented line "  name   summary" under a "Commands:" heading), then
`KioskCards NAME --help` for each; a command whose --help fails or prints nothing is
documented by its summary line alone. Options are every "--flag" that starts a help line or
appears in a usage line.
"""
import argparse
import datetime
import re
import subprocess
import sys


def run_help(cmd, args):
    try:
        p = subprocess.run(cmd + args, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None, ""
    out = p.stdout if p.stdout.strip() else p.stderr
    return p.returncode, out


def parse_commands(text):
    commands, in_list = [], False
    for line in text.splitlines():
        if re.match(r"^\s*(sub)?commands?\s*:", line, re.I):
            in_list = True
            continue
        if in_list:
            m = re.match(r"^\s{1,8}([a-z][a-z0-9-]*)(?:,\s*[a-z][a-z0-9-]*)*\s{2,}(.*)$", line)
            if m:
                commands.append((m.group(1), m.group(2).strip()))
            elif line.strip() and not line.startswith(" "):
                in_list = False
    return commands


def options_of(text):
    found = []
    for line in text.splitlines():
        s = line.strip()
        candidates = re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", s) if s.lower().startswith(("usage", "kioskcards", "[")) else []
        m = re.match(r"^(--[a-z][a-z0-9-]*)", s)
        if m:
            candidates.append(m.group(1))
        for c in candidates:
            if c not in found:
                found.append(c)
    return found


def roff(text):
    out = []
    for line in text.splitlines():
        line = line.replace("\\", "\\e").replace("-", "\\-")
        if line.startswith((".", "'")):
            line = "\\&" + line
        out.append(line)
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--man", required=True)
    ap.add_argument("--completion", required=True)
    ap.add_argument("--date", default=datetime.date.today().isoformat())
    ap.add_argument("command", nargs="+")
    a = ap.parse_args()
    cmd = a.command

    rc, top = run_help(cmd, ["--help"])
    if rc != 0 or not top.strip():
        sys.exit(f"gen-docs: '{' '.join(cmd)} --help' failed (status {rc})")
    _, version = run_help(cmd, ["--version"])
    version = (version.strip().split() or ["KioskCards", "?"])[-1]
    commands = parse_commands(top)
    if not commands:
        sys.exit("gen-docs: no commands found in --help (expected a 'Commands:' list)")
    summary = top.splitlines()[0].split("—", 1)[-1].strip() if "—" in top.splitlines()[0] else "touch card kiosk"

    helps = {}
    for name, _ in commands:
        code, text = run_help(cmd, [name, "--help"])
        helps[name] = text if code == 0 and text.strip() else ""

    m = [
        f'.TH KIOSKCARDS 1 "{a.date}" "KioskCards {version}" "User Commands"',
        ".SH NAME",
        f"KioskCards \\- {roff(summary)}",
        ".SH SYNOPSIS",
        ".B KioskCards",
        ".I command",
        "[\\fIoptions\\fR]",
        ".SH DESCRIPTION",
        "KioskCards shows a swipeable card deck on a Linux panel through DRM/KMS and evdev, and",
        "stores every decision in SQLite. It runs as the systemd service \\fBkioskcards\\fR.",
        "This page is generated from the program's own \\fB\\-\\-help\\fR output.",
        ".SH COMMANDS",
    ]
    for name, line in commands:
        m += [".TP", f"\\fB{name}\\fR", roff(line)]
        if helps[name]:
            m += [".RS", ".PP", ".nf", roff(helps[name].rstrip()), ".fi", ".RE"]
    m += [
        ".SH FILES",
        ".TP", "\\fI/etc/kioskcards/kiosk.conf\\fR", "configuration; every \\fBrun\\fR flag is also a key",
        ".TP", "\\fI/var/lib/kioskcards\\fR", "the decisions database, screenshots and input recordings",
        ".TP", "\\fI/usr/share/kioskcards/examples\\fR", "example decks; the deck schema is in \\fI/usr/share/kioskcards/schema\\fR",
        ".SH SEE ALSO",
        "\\fBsystemctl\\fR(1), \\fBjournalctl\\fR(1), \\fI/usr/share/doc/kioskcards/README.Debian\\fR",
        "",
    ]
    with open(a.man, "w") as f:
        f.write("\n".join(m))

    cases = []
    for name, _ in commands:
        opts = " ".join(o for o in options_of(helps[name]) if o != "--help") + " --help"
        cases.append(f"    {name}) opts='{opts.strip()}' ;;")
    names = " ".join(n for n, _ in commands)
    top_opts = " ".join(options_of(top)) or "--help --version"
    comp = f"""# bash completion for KioskCards (generated from its --help by scripts/gen-docs.py)
_kioskcards() {{
  local cur=${{COMP_WORDS[COMP_CWORD]}} prev=${{COMP_WORDS[COMP_CWORD-1]}} opts
  if [ "$COMP_CWORD" -eq 1 ]; then
    mapfile -t COMPREPLY < <(compgen -W '{names} {top_opts}' -- "$cur")
    return
  fi
  case $prev in
    --config|--deck|--data|--input|--drm|--stats|--out|--script|--replay) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
  esac
  case ${{COMP_WORDS[1]}} in
{chr(10).join(cases)}
    *) opts='--help' ;;
  esac
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
}}
complete -o filenames -F _kioskcards KioskCards
"""
    with open(a.completion, "w") as f:
        f.write(comp)
    print(f"gen-docs: {len(commands)} commands, {sum(1 for h in helps.values() if h)} with --help", file=sys.stderr)


if __name__ == "__main__":
    main()
