"""The domain's rules as pure functions of values: scores, boards, fair play, a race's board messages' timing
(``ticking``), the finish's (``finishing``), Best writes' pace (``pacing``), a racer's live totals
(``scoring``) and a finished race's results (``settlement``). Nothing here reads or writes storage:
the stream's reactions (``alleycat.stream``) and the flows (``alleycat.flows``) read, ask a rule, and write."""
