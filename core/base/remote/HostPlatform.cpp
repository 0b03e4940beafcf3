#include "base/remote/HostPlatform.h"

#include <cctype>
#include <sstream>

#include "base/remote/ShellQuote.h"

namespace streetgan {

int compareVersions(const std::string& a, const std::string& b) {
    size_t i = 0, j = 0;
    while (i < a.size() || j < b.size()) {
        auto part = [](const std::string& s, size_t& k) {
            long long n = 0;
            bool any = false;
            while (k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]))) {
                n = n * 10 + (s[k++] - '0');
                any = true;
                if (n > 1000000000) n = 1000000000;
            }
            // "2.11.0+cu130": the part ends at the first non-digit; the rest of the text is not compared.
            if (k < s.size() && s[k] == '.')
                ++k;
            else
                k = s.size();
            return any ? n : 0LL;
        };
        const long long x = part(a, i), y = part(b, j);
        if (x != y) return x < y ? -1 : 1;
    }
    return 0;
}

std::string HostPython::torchMinor() const {
    if (torch.empty()) return {};
    const auto first = torch.find('.');
    if (first == std::string::npos) return torch;
    size_t end = first + 1;
    while (end < torch.size() && std::isdigit(static_cast<unsigned char>(torch[end]))) ++end;
    return torch.substr(0, end);
}

namespace {

// Run by each Python: one tab-separated line. No single quote in it (the script quotes it so).
const char* const kPythonProbe =
    "import sys\n"
    "v = \"%d.%d.%d\" % tuple(sys.version_info[:3])\n"
    "t = c = a = p = \"\"\n"
    "try:\n"
    "    import torch\n"
    "    t = str(torch.__version__)\n"
    "    c = torch.version.cuda or \"\"\n"
    "    try:\n"
    "        a = torch._C._cuda_getArchFlags() or \"\"\n"
    "    except Exception:\n"
    "        a = \"\"\n"
    "except BaseException as e:\n"
    "    lines = str(e).strip().splitlines()\n"
    "    p = lines[-1] if lines else type(e).__name__\n"
    "print(\"\\t\".join([\"python=\" + sys.argv[1], v, t, c, a, p.replace(\"\\t\", \" \")]))\n";

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> parts;
    std::string cur;
    for (char c : s) {
        if (c == sep) {
            parts.push_back(cur);
            cur.clear();
        } else {
            cur += c;
        }
    }
    parts.push_back(cur);
    return parts;
}

std::string trim(std::string s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    size_t i = 0;
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    return s.substr(i);
}

}  // namespace

std::string HostPlatform::distributionScript() {
    return "( . /etc/os-release 2>/dev/null; printf 'os_id=%s\\nos_version=%s\\nos_name=%s\\n' \"$ID\" \"$VERSION_ID\" \"$PRETTY_NAME\" ); "
           "if command -v conda >/dev/null 2>&1 || [ -x \"$HOME/miniconda3/bin/conda\" ] || [ -x \"$HOME/anaconda3/bin/conda\" ] || "
           "[ -x /opt/conda/bin/conda ] || [ -x \"$HOME/miniforge3/bin/conda\" ]; then echo conda=1; fi; ";
}

std::string HostPlatform::script(const std::vector<std::string>& extraPythons) {
    std::string extra;
    for (const auto& p : extraPythons) extra += ShellQuote::quote(p) + " ";
    // The usual places of a PyTorch: PATH's python3 and the system's, AWS's Deep Learning AMIs (/opt/pytorch venv,
    // /opt/conda envs), conda and venvs under $HOME. At most 8 interpreters are asked (each
    // imports torch, a few seconds).
    return std::string("uname_s=$(uname -s 2>/dev/null); printf 'kernel=%s\\nmachine=%s\\n' \"$uname_s\" \"$(uname -m 2>/dev/null)\"; ") +
           distributionScript() +
           std::string(
               "g=$(getconf GNU_LIBC_VERSION 2>/dev/null | sed -n 's/^glibc //p'); "
               "[ -n \"$g\" ] || g=$(ldd --version 2>&1 | head -n 1 | grep -i -e glibc -e 'gnu libc' | sed 's/.* //'); "
               "printf 'glibc=%s\\n' \"$g\"; "
               "for f in $( { ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null; } | sed -n 's/.*libstdc++\\.so\\.6 .*=> //p') "
               "/usr/lib64/libstdc++.so.6 /usr/lib/x86_64-linux-gnu/libstdc++.so.6 /lib64/libstdc++.so.6; do "
               "if [ -r \"$f\" ]; then printf 'glibcxx=%s\\n' \"$(grep -ao 'GLIBCXX_3\\.4\\.[0-9]*' \"$f\" | sed 's/GLIBCXX_//' | "
               "sort -u -t. -k3,3n | tail -n 1)\"; break; fi; done; "
               "for c in c++ g++ clang++; do if command -v $c >/dev/null 2>&1; then "
               "printf 'cxx=%s %s\\n' \"$c\" \"$($c -dumpfullversion 2>/dev/null || $c -dumpversion 2>/dev/null)\"; break; fi; done; "
               "command -v cmake >/dev/null 2>&1 && printf 'cmake=%s\\n' \"$(cmake --version 2>/dev/null | head -n 1 | sed 's/.* //')\"; "
               // nvcc as packaging/build-trainer.sh looks for it (a CUDA torch's CMake files ask for it).
               "for n in \"$(command -v nvcc 2>/dev/null)\" \"${CUDA_HOME:-/nonexistent}/bin/nvcc\" /usr/local/cuda/bin/nvcc; do if [ -n \"$n\" ] && [ -x "
               "\"$n\" ]; then "
               "printf 'nvcc=%s\\n' \"$(\"$n\" --version 2>/dev/null | sed -n 's/.*release \\([0-9.]*\\).*/\\1/p')\"; break; fi; done; "
               "if command -v nvidia-smi >/dev/null 2>&1; then "
               "{ nvidia-smi --query-gpu=name,compute_cap --format=csv,noheader 2>/dev/null || "
               "nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null; } | grep -v '^ *$' | sed 's/^/gpu=/'; fi; "
               "code=") +
           ShellQuote::quote(kPythonProbe) +
           "; to=; command -v timeout >/dev/null 2>&1 && to='timeout 120'; seen=' '; n=0; "
           "for p in " +
           extra +
           "\"$(command -v python3 2>/dev/null)\" /usr/bin/python3 /usr/local/bin/python3 /opt/pytorch/bin/python3 /opt/conda/envs/pytorch/bin/python "
           "/opt/conda/bin/python "
           "\"$HOME/miniconda3/bin/python\" \"$HOME/anaconda3/bin/python\" \"$HOME/miniforge3/bin/python\" \"$HOME/.venv/bin/python\" "
           "\"$HOME/venv/bin/python\" \"$HOME\"/miniconda3/envs/*/bin/python /opt/conda/envs/*/bin/python; do "
           "case $p in '~/'*) p=\"$HOME/${p#\\~/}\" ;; esac; "
           "[ -n \"$p\" ] && [ -x \"$p\" ] && [ ! -d \"$p\" ] || continue; "
           "case \"$seen\" in *\" $p \"*) continue ;; esac; seen=\"$seen$p \"; n=$((n + 1)); [ $n -le 8 ] || break; "
           "$to \"$p\" -c \"$code\" \"$p\" 2>/dev/null | grep '^python=' || printf 'python=%s\\t\\t\\t\\t\\t%s\\n' \"$p\" 'did not start'; "
           "done; true";
}

HostPlatform HostPlatform::parse(const std::string& output) {
    HostPlatform h;
    std::istringstream in(output);
    std::string l;
    while (std::getline(in, l)) {
        if (!l.empty() && l.back() == '\r') l.pop_back();
        const auto eq = l.find('=');
        if (eq == std::string::npos) continue;
        const std::string key = l.substr(0, eq), value = l.substr(eq + 1);
        if (key == "kernel")
            h.kernel = trim(value);
        else if (key == "machine")
            h.machine = trim(value);
        else if (key == "os_id")
            h.osId = value;
        else if (key == "os_version")
            h.osVersionId = value;
        else if (key == "os_name")
            h.osName = value;
        else if (key == "glibc")
            h.glibc = trim(value);
        else if (key == "glibcxx")
            h.glibcxx = trim(value);
        else if (key == "cxx")
            h.cxx = trim(value);
        else if (key == "cmake")
            h.cmake = trim(value);
        else if (key == "nvcc")
            h.nvcc = trim(value);
        else if (key == "conda")
            h.hasConda = true;
        else if (key == "gpu") {
            HostGpu g;
            const auto comma = value.rfind(", ");
            const std::string tail = comma == std::string::npos ? "" : trim(value.substr(comma + 2));
            // "NAME, 7.0" with the capability query; "NAME" from a driver without it.
            if (!tail.empty() && std::isdigit(static_cast<unsigned char>(tail[0])) && tail.find('.') != std::string::npos) {
                g.name = trim(value.substr(0, comma));
                g.capability = tail;
            } else {
                g.name = trim(value);
            }
            if (!g.name.empty()) h.gpus.push_back(g);
        } else if (key == "python") {
            const auto f = split(value, '\t');
            HostPython p;
            p.path = f[0];
            if (f.size() > 1) p.version = f[1];
            if (f.size() > 2) p.torch = f[2];
            if (f.size() > 3) p.torchCuda = f[3];
            if (f.size() > 4) {
                std::istringstream archs(f[4]);
                for (std::string a; archs >> a;) p.archs.push_back(a);
            }
            if (f.size() > 5) p.torchProblem = f[5];
            if (!p.path.empty()) h.pythons.push_back(p);
        }
    }
    return h;
}

const HostPython* HostPlatform::bestTorch() const {
    const HostPython* best = nullptr;
    for (const auto& p : pythons)
        if (p.hasTorch() && (!best || compareVersions(p.torch, best->torch) > 0)) best = &p;
    return best;
}

std::string HostPlatform::summary() const {
    std::string s = osName.empty() ? (kernel.empty() ? std::string("unknown system") : kernel) : osName;
    if (!machine.empty()) s += ", " + machine;
    if (!glibc.empty()) s += ", glibc " + glibc;
    return s;
}

}  // namespace streetgan
