"""Alleycat's tests. A regular package: garmin-fit-sdk (the FIT export's test) installs a top-level
``tests`` package of its own into site-packages, which would win over a namespace package of this name."""
