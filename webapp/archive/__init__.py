"""The viewers' room: the public archive of aired questions (``/archive``: reads in
``queries``, pages in ``views``), a question's public history (``history``) and the author's
own pages that show it, the status page and «Мои вопросы» (``viewer``)."""
