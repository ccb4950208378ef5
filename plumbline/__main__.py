"""`python -m plumbline` runs the command line."""

from plumbline.cli import main

if __name__ == "__main__":
    main()
