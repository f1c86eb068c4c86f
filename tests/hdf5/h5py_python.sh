# h5py_python.sh — sourced by the tests that read results.h5 with h5py: h5py_python prints
# the first python3 that imports both h5py and numpy (a python3 of pyenv or a venv may come
# before Debian's on PATH), or nothing when none does.
h5py_python() {
  local candidate
  for candidate in python3 /usr/bin/python3; do
    if command -v "$candidate" >/dev/null && "$candidate" -c "import h5py, numpy" 2>/dev/null; then
      echo "$candidate"; return
    fi
  done
}
