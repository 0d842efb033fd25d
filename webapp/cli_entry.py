"""``python -m webapp.cli_entry`` is the ``sova`` command (for environments without the
console script on PATH)."""

from webapp.cli import main

if __name__ == "__main__":
    main()
