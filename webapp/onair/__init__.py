"""On air: the broadcast feed of a game for the graphics (vMix, CasparCG, OBS, OGraf
controllers; ``shared/contracts/api.md``, «On air»): the per-game broadcast tokens
(``models``, ``operations``), the on-air row of a game (``queries``, built by
:func:`webapp.domain.onair.onair_row` from the same replay the console reads), and the
JSON source, the push stream, the overlay page and its OGraf manifest (``views``)."""
