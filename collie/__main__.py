"""`python -m collie` runs the command-line interface."""

from collie.cli import main

if __name__ == "__main__":
    main()
