# SPDX-License-Identifier: BSL-1.0
"""One colour per implementation, the same in every chart: hues by family (own warm, std blue, Boost
green, bounds grey and muted), a distinct shade for each variant, so own's variants are told apart."""

import re

COLOURS = {
    # own: oranges, reds, browns, golds, pinks
    "own": "#DD8452", "own_pool": "#C44E52", "own_concurrent_pool": "#8C2D04", "own_intrusive": "#E6AB02",
    "own_local": "#E377C2", "own_resource": "#FDAE6B", "own_snapshot": "#A63603", "own_managed": "#E6550D",
    "own_managed_pool": "#7F2704", "own_multipool": "#FD8D3C", "own_concurrent_multipool": "#B15928",
    "own_object": "#F7B6D2", "own_object_pool": "#D62728", "own_concurrent_object_pool": "#67000D",
    "own_copy": "#FDD0A2",
    # std: blues, cyan, purple
    "std": "#4C72B0", "std_pool": "#6BAED6", "std_pmr_pool": "#9ECAE1", "std_boost_pool": "#17BECF",
    "std_function": "#9467BD", "pmr_synchronized": "#08519C", "pmr_unsynchronized": "#C6DBEF",
    # Boost: greens, olive
    "boost": "#55A868", "boost_plain": "#A1D99B", "boost_intrusive": "#238B45", "boost_local": "#74C476",
    "boost_pool": "#006D2C", "boost_singleton_pool": "#41AB5D", "boost_object_pool": "#BCBD22",
    # bounds and others
    "floor": "#8C8C8C", "floor_two_words": "#BDBDBD", "floor_two_threads": "#BDBDBD", "raw": "#8172B3", "dumb": "#937860", "stack": "#DA8BC3",
    "seed_pool": "#CCB974", "linked": "#333333", "mutex": "#637939", "shared_mutex": "#8CA252",
}
FAMILY = {"own": "#DD8452", "std": "#4C72B0", "boost": "#55A868", "floor": "#8C8C8C"}


def colour(impl):
    """The implementation's colour (an allocator variant, std+mimalloc..., takes its implementation's);
    an implementation not listed takes its family's."""
    base = impl.split("+")[0]
    return COLOURS.get(base) or FAMILY.get(re.split(r"_", base)[0], "#7F7F7F")
