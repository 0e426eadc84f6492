import sys

from ragox.cli import main

sys.exit(main())
