#!/usr/bin/env python3
"""The layering rules of docs/ARCHITECTURE.md, checked on the sources' #include lines and CMake files.

  core/base  (streetgan_base): includes only base/ headers; no LibTorch (torch/, ATen/, c10/), no Qt
  core/ml    (streetgan_ml):   base/ and ml/ headers; no Qt, nothing of app/ or ui/
  app/trainer (streetgan_cli): base/, ml/ and trainer/ headers; no Qt
  ui         (streetgan_ui):   base/ and ui's own "<screen>/X.h" headers, Qt; never ml/ or LibTorch
  folders:   no cycle between folders (base/run -> base/model is fine, base/model -> base/run then
             would be a cycle), within and across the libraries
  CMake:     no target links a library by file name ($<TARGET_FILE:...> in target_link_libraries)

Usage: check_layering.py ROOT      prints each violation on one line, exits 1 if there is any
       check_layering.py --self-test   proves that each rule bites on a small tree of its own
"""
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
TORCH = ('torch/', 'ATen/', 'c10/', 'caffe2/')
SOURCE_EXT = ('.h', '.hpp', '.cpp', '.cc')
UI_SCREENS = None  # filled from the tree: ui's top-level folders


def is_qt(name):
    return name.startswith('Q') or name.startswith('qcustomplot') or re.match(r'^Qt[A-Za-z]*/', name) is not None


def layer_of(rel):
    """(layer, folder) of a source file relative to ROOT, or None for files outside the layers."""
    parts = rel.split('/')
    if parts[0] == 'core' and len(parts) >= 3 and parts[1] in ('base', 'ml'):
        return parts[1], '/'.join(parts[1:3]) if len(parts) > 3 else parts[1]
    if parts[0] == 'app' and len(parts) >= 2 and parts[1] in ('trainer', 'studio'):
        return 'app/' + parts[1], 'app/' + parts[1]
    if parts[0] == 'ui' and len(parts) >= 2:
        return 'ui', 'ui/' + parts[1] if len(parts) > 2 else 'ui'
    return None


def target_folder(layer, kind, name, screens):
    """The folder an include of `name` from `layer` points at, for the cycle check."""
    if kind != '"':
        return None
    parts = name.split('/')
    if parts[0] in ('base', 'ml') and len(parts) >= 3:
        return parts[0] + '/' + parts[1]
    if parts[0] == 'trainer':
        return 'app/trainer'
    if layer == 'ui' and parts[0] in screens and len(parts) >= 2:
        return 'ui/' + parts[0]
    return None


def check(root):
    violations = []
    screens = set()
    if os.path.isdir(os.path.join(root, 'ui')):
        screens = {d for d in os.listdir(os.path.join(root, 'ui')) if os.path.isdir(os.path.join(root, 'ui', d))}
    edges = {}  # folder -> {folder: first file that makes the edge}
    for top in ('core', 'app', 'ui'):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if not f.endswith(SOURCE_EXT):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                lf = layer_of(rel)
                if lf is None:
                    continue
                layer, folder = lf
                with open(path, encoding='utf-8', errors='replace') as fh:
                    text = fh.read()
                for m in INCLUDE.finditer(text):
                    kind, name = m.group(1), m.group(2)
                    line = text.count('\n', 0, m.start()) + 1
                    where = '%s:%d: #include %s%s%s' % (rel, line, kind, name, '"' if kind == '"' else '>')
                    torch = kind == '<' and name.startswith(TORCH)
                    qt = kind == '<' and is_qt(name)
                    first = name.split('/')[0]
                    if layer == 'base':
                        if torch: violations.append(where + ': streetgan_base must not use LibTorch (move the code to core/ml)')
                        if qt: violations.append(where + ': streetgan_base must not use Qt (it is shared with the headless trainer)')
                        if kind == '"' and first in ('ml', 'trainer'):
                            violations.append(where + ': streetgan_base must not include %s/ headers (base is below them)' % first)
                    elif layer == 'ml':
                        if qt: violations.append(where + ': streetgan_ml must not use Qt')
                        if kind == '"' and first == 'trainer':
                            violations.append(where + ': streetgan_ml must not include app/trainer headers (the commands are above it)')
                        if kind == '"' and first in screens:
                            violations.append(where + ': streetgan_ml must not include ui/ headers')
                    elif layer == 'app/trainer':
                        if qt: violations.append(where + ': the trainer must not use Qt (it builds without it)')
                    elif layer == 'ui':
                        if torch: violations.append(where + ': ui/ must not use LibTorch (generators run in the explore worker)')
                        if kind == '"' and first in ('ml', 'trainer'):
                            violations.append(where + ': ui/ must not include %s/ headers (it links streetgan_base only)' % first)
                    to = target_folder(layer, kind, name, screens)
                    if to and to != folder:
                        edges.setdefault(folder, {}).setdefault(to, where)
    violations += cycles(edges)
    violations += cmake_links(root)
    return violations


def cycles(edges):
    """One violation per strongly connected component of more than one folder (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    nodes = set(edges) | {t for v in edges.values() for t in v}

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, {})):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                comp.sort()
                why = '; '.join(edges[a][b] for a in comp for b in sorted(edges.get(a, {})) if b in comp)
                out.append('folder cycle %s: %s' % (' <-> '.join(comp), why))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            strong(v)
    return out


def cmake_links(root):
    out = []
    link = re.compile(r'target_link_libraries\s*\(([^)]*)\)', re.S)
    for dirpath, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in ('build', '.git')]
        for f in files:
            if f != 'CMakeLists.txt' and not f.endswith('.cmake'):
                continue
            path = os.path.join(dirpath, f)
            with open(path, encoding='utf-8', errors='replace') as fh:
                text = fh.read()
            for m in link.finditer(text):
                if '$<TARGET_FILE:' in m.group(1):
                    line = text.count('\n', 0, m.start()) + 1
                    out.append('%s:%d: links a library by file name ($<TARGET_FILE:...>); link the target so its usage '
                               'requirements come with it' % (os.path.relpath(path, root), line))
    return out


def self_test():
    """Each rule must report a violation on a tree made to break it, and none on a clean tree."""
    cases = {
        'base includes ml': {'core/base/run/A.h': '#include "ml/train/Trainer.h"\n'},
        'base includes torch': {'core/base/run/A.cpp': '#include <torch/torch.h>\n'},
        'base includes Qt': {'core/base/run/A.cpp': '#include <QString>\n'},
        'ui includes ml': {'ui/explorer/A.cpp': '#include "ml/latent/Slerp.h"\n'},
        'ui includes ATen': {'ui/runs/A.cpp': '#include <ATen/ATen.h>\n'},
        'ml includes Qt': {'core/ml/train/A.cpp': '#include <QtCore/QString>\n'},
        'ml includes the CLI': {'core/ml/train/A.cpp': '#include "trainer/TrainCommand.h"\n'},
        'folder cycle': {'core/ml/train/A.h': '#include "ml/data/B.h"\n', 'core/ml/data/B.h': '#include "ml/train/A.h"\n'},
        'long folder cycle': {'core/base/run/A.h': '#include "base/model/B.h"\n', 'core/base/model/B.h': '#include "base/util/C.h"\n',
                              'core/base/util/C.h': '#include "base/run/A.h"\n'},
        'ui folder cycle': {'ui/runs/A.h': '#include "dashboard/B.h"\n', 'ui/dashboard/B.h': '#include "runs/A.h"\n'},
        'link by file name': {'ui/CMakeLists.txt': 'target_link_libraries(streetgan_ui PUBLIC $<TARGET_FILE:streetgan_ml>)\n'},
    }
    clean = {'core/base/run/A.h': '#include "base/util/Errors.h"\n#include <nlohmann/json.hpp>\n',
             'core/ml/train/T.cpp': '#include "base/run/A.h"\n#include <torch/torch.h>\n',
             'app/trainer/C.cpp': '#include "ml/train/T.h"\n#include "trainer/D.h"\n',
             'ui/runs/R.cpp': '#include "base/run/A.h"\n#include "dashboard/P.h"\n#include <QWidget>\n',
             'ui/CMakeLists.txt': 'target_link_libraries(streetgan_ui PUBLIC streetgan_base Qt6::Widgets)\n'}
    failed = 0
    for name, files in list(cases.items()) + [('clean tree', {})]:
        with tempfile.TemporaryDirectory() as d:
            for p, text in list(clean.items()) + list(files.items()):
                os.makedirs(os.path.dirname(os.path.join(d, p)), exist_ok=True)
                with open(os.path.join(d, p), 'a') as fh:
                    fh.write(text)
            v = check(d)
            ok = (not v) if name == 'clean tree' else bool(v)
            print('%s: %s -> %s' % ('ok' if ok else 'FAILED', name, v[0] if v else 'no violation'))
            failed += not ok
    return 1 if failed else 0


if __name__ == '__main__':
    if len(sys.argv) == 2 and sys.argv[1] == '--self-test':
        sys.exit(self_test())
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    found = check(sys.argv[1])
    for v in found:
        print(v)
    print('layering: %d violation(s)' % len(found))
    sys.exit(1 if found else 0)
