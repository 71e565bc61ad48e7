"""The domain's rules as pure functions of values: scores, boards, fair play, the push gate's timing.
Nothing here reads or writes storage."""
