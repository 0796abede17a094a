#!/usr/bin/env python3
"""Extract files a VM exported on its second serial port (/dev/ttyS1).

The guest writes, per file:
    === PTO-FILE <name>
    <base64 lines>
    === PTO-FILE-END
A name may have one directory ("<graph>/<file>": a simpler-format
profile's directory); anything else is reduced to its base name.
usage: extract-files.py DATA_LOG OUTPUT_DIR   (prints each path written)
"""
import base64
import os
import sys


def main():
    data, outdir = sys.argv[1], sys.argv[2]
    os.makedirs(outdir, exist_ok=True)
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
