"""HUD removal methods: baselines now (`identity`, `telea-gt`); learned removers plug in beside them."""

METHODS = ("identity", "telea-gt")
# What each method needs, for the "Mask" and "Ref P.T." columns of the results table.
METHOD_TRAITS = {"identity": {"mask": False, "ref_pt": False}, "telea-gt": {"mask": True, "ref_pt": False}}
