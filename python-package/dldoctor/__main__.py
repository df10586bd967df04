"""`python -m dldoctor`: run the `dldoctor` binary the wheel installed beside this package."""

import os
import sys
import sysconfig


def find_dldoctor_bin() -> str:
    """Return the path of the installed `dldoctor` binary."""
    exe = "dldoctor" + (sysconfig.get_config_var("EXE") or "")

    # The environment's scripts folder (a virtual environment's bin/, or the interpreter's).
    candidates = [os.path.join(sysconfig.get_path("scripts"), exe)]
    # `pip install --user`.
    if sys.version_info >= (3, 10):
        user_scheme = sysconfig.get_preferred_scheme("user")
    elif os.name == "nt":
        user_scheme = "nt_user"
    elif sys.platform == "darwin" and getattr(sys, "_framework", None):
        user_scheme = "osx_framework_user"
    else:
        user_scheme = "posix_user"
    candidates.append(os.path.join(sysconfig.get_path("scripts", scheme=user_scheme), exe))
    # `pip install --target <dir>` puts the package in <dir> and the scripts in <dir>/bin.
    target = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    candidates.append(os.path.join(target, "bin", exe))

    for path in candidates:
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(
        "dldoctor: the dldoctor binary is not installed beside this package; looked in "
        + ", ".join(candidates)
        + ". Reinstall it: pip install --force-reinstall dldoctor"
    )


def main() -> None:
    try:
        binary = os.fsdecode(find_dldoctor_bin())
    except FileNotFoundError as error:
        print(error, file=sys.stderr)
        sys.exit(2)
    if sys.platform == "win32":
        import subprocess

        sys.exit(subprocess.run([binary, *sys.argv[1:]]).returncode)
    os.execvp(binary, [binary, *sys.argv[1:]])


if __name__ == "__main__":
    main()
