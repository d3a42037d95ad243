#!/bin/sh
# package_test.sh PYTHON BUILD_DIR WORK_DIR: builds the wheel (build_wheel.sh),
# installs it with pip --no-index into a fresh venv (--system-site-packages,
# for NumPy), and from a temporary folder outside the repository, with
# KILN_LIBRARY unset, classifies every digit sample with the installed
# package, checking that it loads the libkiln bundled in it.
set -eu
py=$1
build=$2
work=$3
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../../.." && pwd)
if ! "$py" -c "import numpy" >/dev/null 2>&1; then
  echo "SKIP: NumPy is not installed for $py (Debian package python3-numpy)"
  exit 77
fi
if ! "$py" -c "import ensurepip" >/dev/null 2>&1; then
  echo "SKIP: $py cannot make virtual environments (Debian package python3-venv)"
  exit 77
fi
rm -rf "$work"
mkdir -p "$work/dist"
wheel=$(PYTHON="$py" sh "$here/../build_wheel.sh" "$build" "$work/dist" | tail -n 1)
echo "built $wheel"
"$py" -m venv --system-site-packages "$work/venv"
"$work/venv/bin/python" -m pip install --no-index --no-deps --disable-pip-version-check -q \
  "$wheel"
run=$(mktemp -d "${TMPDIR:-/tmp}/kiln-py-pkg.XXXXXX")
trap 'rm -rf "$run"' EXIT
cat > "$run/classify.py" <<'PY'
import glob, os, re, sys
import kiln
model_path, samples = sys.argv[1], sys.argv[2]
site = os.path.dirname(os.path.abspath(kiln.__file__))
assert site.startswith(sys.prefix), "kiln imported from %s, not the venv" % site
assert os.path.dirname(os.path.abspath(kiln.library_path())) == site, kiln.library_path()
model = kiln.Model(model_path)
right = 0
files = sorted(glob.glob(os.path.join(samples, "*.pb")))
with model.session() as session:
    for path in files:
        (logits,) = session.run({"image": kiln.load_tensor(path)})
        label = int(re.search(r"_label_(\d)", path).group(1))
        right += int(logits.argmax()) == label
print("installed kiln %s (libkiln %s from %s): %d/%d digits right"
      % (kiln.__version__, kiln.version(), kiln.library_path(), right, len(files)))
sys.exit(0 if files and right == len(files) else 1)
PY
cd "$run"
env -u KILN_LIBRARY -u PYTHONPATH "$work/venv/bin/python" classify.py \
  "$src/examples/digits/digits.onnx" "$src/examples/digits/samples"
