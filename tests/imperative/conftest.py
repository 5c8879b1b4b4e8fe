import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from imperative_support import isolated_home, served, served_env  # noqa: E402,F401
