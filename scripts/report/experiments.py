# SPDX-License-Identifier: BSL-1.0
"""What each experiment is: its title, the published experiment it reproduces (its seed, cited from
bench/data/sources.json) and the paragraph that introduces it."""

import json
import os

from .results import DATA_DIR


def cite(key):
    """A seed as a reader can find it: title, authors, year, where it was published."""
    with open(os.path.join(DATA_DIR, "sources.json")) as f:
        s = json.load(f)[key]
    return f"\"{s['title']}\", {s['authors']}, {s['year']}; {s['where']}"


# Why own's atomic rows are behind Boost's (exp6 and exp7).
BOOST_ATOMIC_TURNS = ("Boost 1.74's atomic_shared_ptr spinlock sleeps once it has spun, so its threads mostly take "
                      "turns instead of contending: its rows at 2 and 4 threads are close to its 1-thread ones")
BOOST_ATOMIC_ONE_THREAD = ("own's store, exchange and compare-exchange make a node and scan the readers' hazard slots, "
                           "and its compare-exchange protects the current node first (a second atomic read-modify-"
                           "write), where Boost's takes its spinlock (one) around a swap of two words")

EXPERIMENTS = [
    {
        "id": "exp1",
        "title": "N1851 Appendix A: constructing a shared pointer, with and without pools",
        "seed": "n1851",
        "intro": (
            "Kliatchko and Rocha (Bloomberg, 2005) timed 5 million constructions and destructions of a "
            "shared pointer - basic constructor, deleter constructor, and the object housed in-place in the "
            "count's block - with no pool, a non-threaded and a threaded pool, in one- and two-thread "
            "programs, against boost::shared_ptr with BOOST_SP_USE_QUICK_ALLOCATOR. We run the whole grid "
            "for own, Boost (quick allocator; and `boost_plain` without it, from a second executable) and "
            "std. Pools: own::pool / own::concurrent_pool for own; std::pmr::unsynchronized / "
            "synchronized_pool_resource for std and Boost; and Boost.Pool for std::shared_ptr, the fixed-size pool "
            "a std user would pick (`std_boost_pool`: a boost::pool<> per thread for the non-threaded pool, "
            "boost::fast_pool_allocator, locked, for the threaded one). The paper's figures (its Results table, in "
            "bench/data/n1851_appendix_a.json) are shown as its ratio to Boost's basic constructor, beside ours."
        ),
        "own_configured": r"pool",  # cases whose own row is given a pool or resource
        "floor_case": "floor",
        "seed_data": "n1851_appendix_a.json",
    },
    {
        "id": "exp2",
        "title": "Boost Smart Pointer Timings: initialisation, copies, containers, sizes",
        "seed": "boost_timings",
        "intro": (
            "Collings et al. (Boost, 2000) timed making a smart pointer from a raw pointer plus n amortised "
            "copies (half copy-constructions, half assignments) and fitted a line: cost of initialisation, "
            "cost per copy; then filled and sorted a vector and a list of 300,000 pointers; and compared "
            "pointer sizes. Simple counted = std::shared_ptr(new) and own::shared_ptr(new); special counted = "
            "own_pool (count from an own::pool), std_pool (count from a pmr pool) and std_boost_pool (count from a "
            "boost::pool<>); intrusive = "
            "own_intrusive, boost_intrusive; local = own_local, boost_local; plus raw, dumb and the floor. "
            "Linked = `linked`, a reference-linked pointer written for the benchmarks (bench/common/linked_ptr.hpp: "
            "the owners of an object form a doubly linked ring, so making one allocates nothing and a copy writes "
            "to its neighbours), the seed's subject. As in the seed, allocating the pointee is not timed, freeing "
            "it is; and the seed's code-size comparison is made again, from the object file. The seed's cyclic "
            "pointer has no counterpart here. Each repetition of a container row runs in a fresh process "
            "(bench/common/fresh_process.hpp), after one untimed fill and clear, and is read by that process's "
            "CPU time of the timed part: in one process, a fill that followed a sort got the blocks the sort's "
            "clear had freed in random order, scattered over the heap, and took up to 10 times as long, so "
            "each row's time depended on which rows happened to run before it."
        ),
        "untimed": r"^(sizeof|code_size)$",  # cases whose rows report a counter, not a time
        "floor_case": None,
    },
    {
        "id": "exp3",
        "title": "Memory and performance overhead of smart pointers",
        "seed": "modernescpp",
        "intro": (
            "Grimm timed 100,000,000 creations and destructions of an int with new/delete, unique_ptr(new), "
            "make_unique, shared_ptr(new) and make_shared, and discussed the memory overhead. We run the "
            "same loop (quick mode: 2,000,000) for std and own, own's pooled forms and managed_ptr (shown "
            "under make_unique, its std counterpart), and measure bytes of heap per live object over "
            "100,000 live objects (glibc mallinfo2 deltas plus own's default heap's pages in use, allocator headers and size-class rounding included) plus sizeof the pointer. "
            "The std+<allocator> rows loop 2,000,000 times (per-operation times are what is compared)."
        ),
        "untimed": r"^bytes_",  # cases whose rows report bytes per object, not a time
        "claims": "memory_overhead.json",  # the seed's claims in words, checked against this run
        "floor_case": "make_shared",
        "reference": ("new_delete", "std", "÷ new/delete"),
    },
    {
        "id": "exp4",
        "title": "Constructing a shared_ptr to a packet: six ways, the hidden memset, two threads",
        "seed": "construction_methods_zh",
        "intro": (
            "A Chinese blog post (10 GbE, ~1M packets/s, each owned by a shared_ptr) timed make_shared, "
            "shared_ptr(new T), shared_ptr over a pooled object, allocate_shared with a pool, new/delete and a "
            "raw pool, and found a hidden memset in VS2017's allocate_shared: it zeroed the memory before running "
            "the packet's constructor. As in the seed, our packet (1508 bytes) has a constructor, which sets its "
            "header and leaves the payload alone, so no form has a memset to do. Pools are thread-safe as in the "
            "seed (std::pmr::synchronized_pool_resource, own::concurrent_pool), and Boost.Pool's locked singleton "
            "pool beside them as the fixed-size pool a std user would pick (`std_boost_pool`: boost::singleton_pool "
            "for the pooled packets, boost::fast_pool_allocator for allocate_shared). 'handoff' rows make the packet on "
            "one thread and drop it on another."
        ),
        "own_configured": r"pool",  # cases whose own row is given a pool or resource
        "floor_case": "make_shared",
        # Cases tabled apart from the reproduction: (pattern, the table's heading, what to say when the run
        # has none, i.e. predates them).
        "apart": (r"^trivial_", "**The trivial packet: what _for_overwrite saves.** The same 1508 bytes without a "
                  "constructor: make_shared and allocate_shared value-initialise it, which for a trivial type means "
                  "zero-filling it (by the standard's rules; the seed's bug did the same to a type with a "
                  "constructor), while make_shared_for_overwrite and allocate_shared_for_overwrite leave it as it "
                  "comes. Single thread only.",
                  "*This run predates the split*: every row below used the trivial packet (no constructor), so "
                  "make_shared's and allocate_shared's rows include a 1508-byte zero-fill that the seed's type did "
                  "not ask for; re-run `bash scripts/report.sh` for the reproduction with the seed's kind of type."),
        "seed_data": "construction_methods.json",
    },
    {
        "id": "exp5",
        "title": "Stack, heap, pool",
        "seed": "stack_heap_pool",
        "intro": (
            "Bulldozer00 timed getting 1000 zeroed 1 MB objects from the stack, the heap and a Pool of "
            "its own (which pre-constructs all N objects and finds free ones by linear scan), plus the pool's "
            "construction. We reimplemented that pool from its description (seed_pool) and add "
            "own::object_pool, boost::object_pool (`boost_object_pool`: its blocks taken and given back without "
            "constructing, as the other pools hand out objects made once; its free keeps the free list in address "
            "order, so giving the N back in the order taken walks that list) and the floor; then the same with 10,000 64-byte objects, where the scans "
            "show. One operation = get all N objects, touch each, give all back (std = new/delete; the "
            "stack holds one at a time). Quick mode uses 100 big objects."
        ),
        "own_configured": r".",  # cases whose own row is given a pool or resource
        "claims": "stack_heap_pool.json",  # the seed's claims in words, checked against this run
        "floor_case": None,
    },
    {
        "id": "exp6",
        "title": "Beyond the seeds: threads, hand-off, std::pmr, atomic shared pointers",
        "seed": None,
        "intro": (
            "Two threads creating and destroying at once; cross-thread hand-off through an SPSC ring (beside "
            "its one-thread floor, `floor_two_threads`: the floor's blocks handed off through the same ring by "
            "two threads, what the cache lines every hand-off moves between the cores cost with the cheapest "
            "allocation); "
            "std::pmr pool resources under std::allocate_shared and own (as a polymorphic_allocator, and "
            "as a plain memory_resource* - own_resource), with Boost.Pool beside them (`std_boost_pool`: "
            "std::allocate_shared with boost::fast_pool_allocator, locked, where threads share it, and with a "
            "boost::pool<> of the row's own in pmr_unsync) and own's pools under own (`own_pool`: own::pool in "
            "pmr_unsync, own::concurrent_pool in pmr_sync), so each pmr case holds every library's best pool; and atomic shared pointers (std::atomic<"
            "std::shared_ptr> of libstdc++ 12, boost::atomic_shared_ptr, own::atomic_shared_ptr) loading, "
            "storing, and one thread storing while the other loads. Read boost's two-thread atomic rows as "
            "threads taking turns: Boost 1.74's atomic_shared_ptr guards its pointer with a spinlock that "
            "sleeps (nanosleep) once it has spun, and strace shows those rows sleeping while std's and "
            "own's never do, so one thread mostly runs alone there. Last, a heap after churn, each repetition "
            "in a fresh process: 300,000 items made, shuffled, nine in ten dropped in that random order (a "
            "tenth stays, scattered, as in a long-running program), then as many made again (`churned_refill`) "
            "and read ten times in the order made (`churned_walk`): whether the blocks an allocator gives out "
            "after random-order frees still lie side by side."
        ),
        "own_configured": r"^pmr_",  # cases whose own row is given a pool or resource
        # why own is behind, for cases matching "<case>/<params>/<best peer impl>" (prose.why_behind)
        "why_behind": [
            (r"^atomic_.*/threads:(2|4)/boost$", BOOST_ATOMIC_TURNS),
            (r"^atomic_(store|exchange|cas)[^/]*/.*threads:1/boost$", BOOST_ATOMIC_ONE_THREAD),
            (r"^atomic_store_idle_readers/", "own's store reads the hazard record (one cache line) of every live "
             "thread that has loaded from any atomic_shared_ptr, to know whether it may free the value it replaced "
             "at once, so it grows with the threads alive; a lock's store does not look at the readers"),
            (r"^churned_", "after random-order frees, own's heap pages and pools give out the block freed last (a "
             "list per page or per pool), so the blocks made next follow the order of the frees, scattered; an "
             "allocator that gives out the lowest free slot of a run (jemalloc's bitmaps) puts them back side by "
             "side"),
        ],
        "floor_case": None,
    },
    {
        "id": "exp7",
        "title": "Components: the performance targets of each own facility",
        "seed": None,
        "intro": (
            "One benchmark file per facility, each against the std (or usual) way in the same process: "
            "shared_ptr creation, copies and weak locks; managed_ptr against std::unique_ptr<T, void(*)(T*)> "
            "returning to the same free list, moves (their floor: the least any owner of four words, managed_ptr's "
            "size, can do in a move; floor_two_words: the same for two words, unique_ptr's size), and the "
            "shared -> managed -> shared round trip against "
            "one shared_ptr copy; local_shared_ptr copies; atomic_shared_ptr against "
            "std::atomic<std::shared_ptr> (atomic_store_idle_readers: one thread storing while 16 or 64 threads "
            "that have each loaded once sleep, as a thread pool between requests does); and the block pools' allocate/deallocate pairs, batches, "
            "two sizes in turn (pool_two_sizes: a 24-byte then a 100-byte pair per round, from two pools or "
            "two size classes of one allocator) and cross-thread hand-off against glibc malloc (std), "
            "std::pmr pool resources and Boost.Pool (boost_pool: a boost::pool<>, no lock; boost_singleton_pool: "
            "the locked pool under boost::fast_pool_allocator; boost_object_pool: boost::object_pool, whose "
            "destroy keeps its free list in address order)."
        ),
        "chart_per_source": True,  # one chart per facility (per executable), not one huge image
        "not_a_swap": r"^round_trip$",  # cases whose std row does other work than own's (one copy)
        # why own is behind, for cases matching "<case>/<params>/<best peer impl>" (prose.why_behind)
        "why_behind": [
            (r"^managed_(create_destroy|move)/", "managed_ptr carries four words (N1851's layout: pointer, object, "
             "manager, clean-up function) where unique_ptr<T, void(*)(T*)> carries two; the table's floor row (the least "
             "a four-word owner can do; floor_two_words for a move of two words) measures that layout's cost"),
            (r"^round_trip/", "a round trip is two conversions (shared to managed, then back, recovering the count), "
             "measured against a single copy"),
            (r"^atomic_(cas|load_under_store)/threads:2/std$", "own::atomic_shared_ptr is lock-free: each store or "
             "successful compare-exchange makes a new node and scans the readers' hazard slots, and a load that meets "
             "a store retries its protection, where libstdc++'s holds a lock bit in its pointer word for a few "
             "instructions (include/own/atomic_shared_ptr.hpp, Design and Costs)"),
            (r"^atomic_.*/threads:(2|4)/boost$", BOOST_ATOMIC_TURNS),
            (r"^atomic_(store|exchange|cas)[^/]*/.*threads:1/boost$", BOOST_ATOMIC_ONE_THREAD),
            (r"^atomic_store_idle_readers/", "own's store reads the hazard record (one cache line) of every live "
             "thread that has loaded from any atomic_shared_ptr, to know whether it may free the value it replaced "
             "at once, so it grows with the threads alive; a lock's store does not look at the readers"),
        ],
        "floor_case": None,
    },
    {
        "id": "exp8",
        "title": "Application workloads: what swapping std:: for own:: gives a whole program",
        "seed": None,
        "intro": (
            "Four small programs shaped like real users' (bench/application_workloads.cpp), each timed end to end "
            "(wall time of one whole run): a document tree of a million nodes built depth-first, each node "
            "followed by a payload of 24-200 bytes, walked, a quarter of it deep-copied, and freed (its phases "
            "timed on their own: walking and copying are where locality shows); a message pipeline (one producer, "
            "two consumers, messages of 64-1000 bytes); an LRU cache of 10,000 values used by two threads that "
            "also keep weak_ptr observers; a persistent (path-copying) map whose versions share nodes. `std` is "
            "std::shared_ptr with the process's malloc (glibc; tcmalloc, jemalloc and mimalloc in their own "
            "processes), `own` is own::shared_ptr with nothing else changed (its default heap), `own_pool` adds "
            "a concurrent_multipool as a user would. Peak RSS: the resident memory a fresh process running the "
            "workload once reaches above where it started."
        ),
        "floor_case": None,
    },
]
