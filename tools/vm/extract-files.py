#!/usr/bin/env python3
"""Extract files a VM exported: those it copied into the directory
DATA_LOG less .data plus .files (tools/vm/vm.sh: the ptoexport 9p share),
then those it wrote on its second serial port (/dev/ttyS1), per file:
    === PTO-FILE <name>
    <base64 lines>
    === PTO-FILE-END
A name may have one directory ("<graph>/<file>": a simpler-format
profile's directory); anything else is reduced to its base name.
usage: extract-files.py DATA_LOG OUTPUT_DIR   (prints each path written)
"""
import base64
import os
import shutil
import sys


def shared(data, outdir):
    """The files in DATA's .files directory, copied into outdir."""
    top = os.path.splitext(data)[0] + '.files'
    for d, _, names in sorted(os.walk(top)):
        for n in sorted(names):
            rel = os.path.relpath(os.path.join(d, n), top)
            parts = [p for p in rel.split(os.sep) if p not in ('', '.', '..')]
            path = os.path.join(outdir, *parts[-2:])
            os.makedirs(os.path.dirname(path), exist_ok=True)
            shutil.copyfile(os.path.join(d, n), path)
            print(path)


def main():
    data, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
    shared(data, outdir)
    name, chunks = None, []
    try:
        lines = open(data, errors='replace').read().splitlines()
    except OSError:
        return 0
    for line in lines:
        line = line.strip('\r')
        if line.startswith('=== PTO-FILE-END'):
            if name:
                parts = [p for p in name.split('/') if p not in ('', '.', '..')]
                rel = os.path.join(*parts[-2:]) if parts else 'unnamed'
                path = os.path.join(outdir, rel)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, 'wb') as f:
                    f.write(base64.b64decode(''.join(chunks)))
                print(path)
            name, chunks = None, []
        elif line.startswith('=== PTO-FILE '):
            name, chunks = line[len('=== PTO-FILE '):].strip(), []
        elif name is not None:
            chunks.append(line)
    return 0


if __name__ == '__main__':
    sys.exit(main())
