"""Only what ``pyproject.toml`` cannot say: the top-level ``templates/`` folder is installed
as the package ``sova_templates`` (its files are package data, listed in pyproject.toml).
Everything else about the project is in pyproject.toml."""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["webapp*", "workers*"]), "sova_templates"],
    package_dir={"sova_templates": "templates"},
)
