"""The public archive of aired questions (``/archive``): reads in ``queries``, pages in
``views``."""
