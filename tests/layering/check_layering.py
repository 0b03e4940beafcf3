#!/usr/bin/env python3
"""The layering rules of docs/ARCHITECTURE.md, checked on the sources' #include lines and CMake files.

  core/base  (streetgan_base): includes only base/ headers; no LibTorch (torch/, ATen/, c10/), no Qt
  core/ml    (streetgan_ml):   base/ and ml/ headers; no Qt, nothing of app/ or ui/
  app/trainer (streetgan_cli): base/, ml/ and trainer/ headers; no Qt
  ui         (streetgan_ui):   base/ and ui's own "<screen>/X.h" headers, Qt; never ml/ or LibTorch;
             a ui folder includes only the folders below it in docs/ARCHITECTURE.md's ui order
             (app > dashboard, checkpoints, explorer and any new screen > runs > remote > events > common)
  tests/     each suite keeps the rules of what it tests: tests/base those of core/base; tests/ml
             those of core/ml (it may drive app/trainer's commands in process); tests/ui those of ui
             but its order (a test may drive any folder); tests/app and tests/fault, which drive the
             programs as processes: no ml/, trainer/ or ui headers, no LibTorch, no Qt
  folders:   no cycle between folders (base/run -> base/model is fine, base/model -> base/run then
             would be a cycle), within and across the libraries
  CMake:     no target links a library by file name ($<TARGET_FILE:...> in target_link_libraries)
  features:  a file that tests STREETGAN_WITH_* in #if includes base/util/BuildFeatures.h, whose
             #error stops a file that CMake's streetgan_build_features() does not define them for
             (an undefined macro in #if reads as 0: the feature would vanish without a word)

Usage: check_layering.py ROOT      prints each violation on one line, exits 1 if there is any
       check_layering.py --self-test   proves that each rule bites on a small tree of its own
"""
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
FEATURE_IF = re.compile(r'^\s*#\s*(?:el)?if\b.*\bSTREETGAN_WITH_', re.M)
TORCH = ('torch/', 'ATen/', 'c10/', 'caffe2/')
SOURCE_EXT = ('.h', '.hpp', '.cpp', '.cc')
# docs/ARCHITECTURE.md's ui order, as ranks: a folder includes only folders of a lower rank. A ui
# folder not named here is a screen (a new ui/<screen>/, rank 3).
UI_RANK = {'app': 5, 'dashboard': 4, 'checkpoints': 4, 'explorer': 4, 'hosts': 4, 'table': 4, 'runs': 3, 'remote': 2, 'events': 1, 'common': 0}
UI_SCREEN_RANK = 4
# The layer whose rules a test suite keeps (tests/<suite>/...); 'driver': it drives the programs.
TEST_LAYER = {'base': 'base', 'ml': 'ml', 'ui': 'ui', 'app': 'driver', 'fault': 'driver'}


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
    if parts[0] == 'tests' and len(parts) >= 3 and parts[1] in TEST_LAYER:
        return 'tests/' + parts[1], None  # no folder: tests take no part in the cycle check
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
    for top in ('core', 'app', 'ui', 'tests'):
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
                rules = TEST_LAYER[layer.split('/')[1]] if layer.startswith('tests/') else layer
                who = 'tests/' + rel.split('/')[1] if layer.startswith('tests/') else None
                with open(path, encoding='utf-8', errors='replace') as fh:
                    text = fh.read()
                for m in INCLUDE.finditer(text):
                    kind, name = m.group(1), m.group(2)
                    line = text.count('\n', 0, m.start()) + 1
                    where = '%s:%d: #include %s%s%s' % (rel, line, kind, name, '"' if kind == '"' else '>')
                    torch = kind == '<' and name.startswith(TORCH)
                    qt = kind == '<' and is_qt(name)
                    first = name.split('/')[0]
                    base_name = who + ' (the tests of streetgan_base)' if who else 'streetgan_base'
                    ml_name = who + ' (the tests of streetgan_ml)' if who else 'streetgan_ml'
                    ui_name = who if who else 'ui/'
                    if rules == 'base':
                        if torch: violations.append(where + ': %s must not use LibTorch (move the code to core/ml)' % base_name)
                        if qt: violations.append(where + ': %s must not use Qt (it is shared with the headless trainer)' % base_name)
                        if kind == '"' and (first in ('ml', 'trainer') or (who and first in screens)):
                            violations.append(where + ': %s must not include %s/ headers (base is below them)' % (base_name, first))
                    elif rules == 'ml':
                        if qt: violations.append(where + ': %s must not use Qt' % ml_name)
                        if kind == '"' and first == 'trainer' and not who:  # tests/ml drives commands in process too
                            violations.append(where + ': %s must not include app/trainer headers (the commands are above it)' % ml_name)
                        if kind == '"' and first in screens:
                            violations.append(where + ': %s must not include ui/ headers' % ml_name)
                    elif rules == 'app/trainer':
                        if qt: violations.append(where + ': the trainer must not use Qt (it builds without it)')
                    elif rules == 'ui':
                        if torch: violations.append(where + ': %s must not use LibTorch (generators run in the explore worker)' % ui_name)
                        if kind == '"' and first in ('ml', 'trainer'):
                            violations.append(where + ': %s must not include %s/ headers (it links streetgan_base only)' % (ui_name, first))
                        own = rel.split('/')[1] if not who and len(rel.split('/')) > 2 else None
                        if own and kind == '"' and first in screens and first != own:
                            mine, theirs = UI_RANK.get(own, UI_SCREEN_RANK), UI_RANK.get(first, UI_SCREEN_RANK)
                            if theirs >= mine:
                                violations.append(where + ': ui/%s must not include ui/%s headers (the ui order of docs/ARCHITECTURE.md: '
                                                  'a folder includes only folders below it)' % (own, first))
                    elif rules == 'driver':
                        if torch or qt: violations.append(where + ': %s drives the programs as processes: no %s' % (who, 'LibTorch' if torch else 'Qt'))
                        if kind == '"' and (first in ('ml', 'trainer') or first in screens):
                            violations.append(where + ': %s drives the programs as processes: no %s/ headers' % (who, first))
                    to = target_folder(layer, kind, name, screens) if folder else None
                    if to and to != folder:
                        edges.setdefault(folder, {}).setdefault(to, where)
                m = FEATURE_IF.search(text)
                if m and not re.search(r'^\s*#\s*include\s*"base/util/BuildFeatures\.h"', text, re.M):
                    violations.append('%s:%d: tests STREETGAN_WITH_* without including "base/util/BuildFeatures.h" (name the file '
                                      'in streetgan_build_features() too): an undefined feature reads as 0' % (rel, text.count('\n', 0, m.start()) + 1))
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
        'folder cycle': {'core/ml/train/A.h': '#include "ml/dataset/B.h"\n', 'core/ml/dataset/B.h': '#include "ml/train/A.h"\n'},
        'long folder cycle': {'core/base/run/A.h': '#include "base/model/B.h"\n', 'core/base/model/B.h': '#include "base/util/C.h"\n',
                              'core/base/util/C.h': '#include "base/run/A.h"\n'},
        'ui folder cycle': {'ui/runs/A.h': '#include "dashboard/B.h"\n', 'ui/dashboard/B.h': '#include "runs/A.h"\n'},
        'link by file name': {'ui/CMakeLists.txt': 'target_link_libraries(streetgan_ui PUBLIC $<TARGET_FILE:streetgan_ml>)\n'},
        'ui order: runs includes a screen above it': {'ui/runs/B.cpp': '#include "explorer/E.h"\n'},
        'ui order: events includes remote': {'ui/events/B.cpp': '#include "remote/H.h"\n'},
        'ui order: a new screen includes app': {'ui/gallery/G.cpp': '#include "app/MainWindow.h"\n'},
        'tests/base includes ml': {'tests/base/run/T.cpp': '#include "ml/train/Trainer.h"\n'},
        'tests/base includes Qt': {'tests/base/run/T.cpp': '#include <QString>\n'},
        'tests/ui includes torch': {'tests/ui/runs/T.cpp': '#include <torch/torch.h>\n'},
        'tests/ml includes a screen': {'tests/ml/train/T.cpp': '#include "dashboard/P.h"\n'},
        'tests/app includes ml': {'tests/app/trainer/T.cpp': '#include "ml/train/Trainer.h"\n'},
        'feature tested without BuildFeatures.h': {'core/ml/train/F.cpp': '#include "base/run/A.h"\n#if STREETGAN_WITH_MP4\n#endif\n'},
    }
    clean = {'core/base/run/A.h': '#include "base/util/Errors.h"\n#include <nlohmann/json.hpp>\n',
             'core/ml/train/T.cpp': '#include "base/run/A.h"\n#include <torch/torch.h>\n',
             'app/trainer/C.cpp': '#include "ml/train/T.h"\n#include "trainer/D.h"\n',
             'ui/dashboard/P.cpp': '#include "runs/R.h"\n#include "common/C.h"\n#include <QWidget>\n',
             'ui/runs/R.cpp': '#include "base/run/A.h"\n#include "remote/H.h"\n#include "events/E.h"\n',
             'ui/explorer/E.h': '', 'ui/remote/H.h': '', 'ui/events/E.h': '', 'ui/common/C.h': '',
             'ui/app/W.cpp': '#include "dashboard/P.h"\n#include "explorer/E.h"\n',
             'tests/ui/runs/T.cpp': '#include "app/MainWindow.h"\n#include "runs/R.h"\n#include <QTest>\n',
             'tests/ml/train/T.cpp': '#include "ml/train/Trainer.h"\n#include <torch/torch.h>\n',
             'core/ml/train/G.cpp': '#include "base/util/BuildFeatures.h"\n#if !STREETGAN_WITH_PHOTOS\n#endif\n',
             'tests/app/trainer/T.cpp': '#include "support/CliRunner.h"\n#include <opencv2/core.hpp>\n',
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
