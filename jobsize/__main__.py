import sys

from jobsize.cli import main

sys.exit(main())
