"""A build backend with the standard library alone, as LowBArena's guide ("Plugins") writes one."""

import base64
import hashlib
import zipfile
from pathlib import Path

NAME, VERSION = "arena_probe", "0.1.0"
ENTRY_POINTS = f"[vllm.general_plugins]\n{NAME} = {NAME}:register\n"
DIST = f"{NAME}-{VERSION}.dist-info"


def _digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    package = Path(__file__).with_name(NAME)
    files = {
        p.relative_to(package.parent).as_posix(): p.read_bytes()
        for p in sorted(package.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }
    files[f"{DIST}/METADATA"] = f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n".encode()
    files[f"{DIST}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: arena-probe\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files[f"{DIST}/entry_points.txt"] = ENTRY_POINTS.encode()
    record = [f"{path},{_digest(data)},{len(data)}" for path, data in files.items()]
    files[f"{DIST}/RECORD"] = ("\n".join([*record, f"{DIST}/RECORD,,"]) + "\n").encode()
    wheel = f"{NAME}-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(Path(wheel_directory) / wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, data in files.items():
            archive.writestr(path, data)
    return wheel
