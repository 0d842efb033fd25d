"""Only what ``pyproject.toml`` cannot say: the top-level ``templates/`` folder is installed
as the package ``sova_templates`` (its files are package data, listed in pyproject.toml).
Everything else about the project is in pyproject.toml.

Folders that hold only data (``webapp/migrations``, ``webapp/static``, the templates'
folders, …) are namespace packages, listed with the rest, so that setuptools installs their
files as package data of their own package rather than warning that it would skip them."""

from setuptools import find_namespace_packages, setup

NOT_CODE = ["*.__pycache__", "__pycache__"]

setup(
    packages=[
        *find_namespace_packages(
            include=["webapp", "webapp.*", "workers", "workers.*"], exclude=NOT_CODE
        ),
        "sova_templates",
        *(
            f"sova_templates.{p}"
            for p in find_namespace_packages(where="templates", exclude=NOT_CODE)
        ),
    ],
    package_dir={"sova_templates": "templates"},
)
