"""Background work and what makes it reliable: the Celery app and the task edge
(``celery``), the transactional outbox and its relay (``outbox``), what the database knows
is still owed and the beat job that gets it done (``owed``, ``sweeps``), the heartbeats of
the processes (``heartbeat``, ``lifecycle``).

Deliberately empty: its modules sit on different floors of the house (the outbox beside
``core``, which enqueues through it; ``owed`` above the features, whose tables it reads),
so nothing is re-exported here and each is imported by its own name.
"""
