import sys

from dealerassist.cli import main

sys.exit(main())
