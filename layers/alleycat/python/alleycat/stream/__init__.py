"""The work that belongs after a write, done by the stream processor: each reaction one module.

``plan`` reads a batch's records into the work they ask for; ``reactions`` does it: ``scoring``
(live totals and boards), ``pushing`` (the board to viewers), ``settlement`` (a finished race's
ranks, bests and class board, with ``history`` packed and ``pacing`` of Best writes), ``renames``
and a new race's own work. Every write sets absolute values read now, so a redelivered or old
record changes nothing. A reaction reads, asks a rule of ``alleycat.rules`` (``scoring``,
``settlement``) what to write, and writes; compaction (``history``) reads and writes through a
small protocol, so it runs without DynamoDB in unit tests.
"""
