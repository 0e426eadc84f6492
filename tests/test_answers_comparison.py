"""A question after the difference between two things is answered with a sentence on
each (issue 16, a new user's questions): "What is the difference between a soft and a
hard quota limit?" quoted three sentences on soft limits, and not "A “hard” limit can
never be exceeded", which scored below them. Text from the Debian Administrator's
Handbook (GPL-2+), §9.10, shortened."""

from __future__ import annotations

from conftest import evidence_of
from ragox.answer import ExtractiveGenerator
from ragox.answer._compare import compared_sides

GRACE = (
    "With the edquota -t command, you can define a maximum authorized grace period "
    "within which a soft limit may be exceeded. After this period, the soft limit will "
    "be treated like a hard limit, and the user will have to reduce their disk space "
    "usage to within this limit in order to be able to write anything to the hard drive."
)
LIMITS = (
    "The quota system allows you to set four limits: two limits (called soft and hard) "
    "refer to the number of blocks consumed, two more to the number of inodes used.\n\n"
    "A soft limit can be temporarily exceeded; the user will simply be warned that they "
    "are exceeding the quota by the warnquota command, which is usually invoked by cron. "
    "A hard limit can never be exceeded: the system will refuse any operation that will "
    "cause a hard quota to be exceeded."
)


def test_the_two_sides_of_a_comparison() -> None:
    assert compared_sides(
        "What is the difference between a soft and a hard quota limit?", ["en"]
    ) == (
        {"soft"},
        {"hard"},
    )
    assert compared_sides("Wie unterscheidet sich stable von testing?", ["de"]) == (
        {"stabl"},
        {"testing"},
    )
    assert compared_sides("Чем мягкий лимит отличается от жёсткого?", ["ru"]) == (
        {"мягк"},
        {"жестк"},
    )
    assert compared_sides("How do I set a soft quota limit?", ["en"]) is None


def test_both_sides_are_quoted() -> None:
    draft = ExtractiveGenerator().generate(
        "What is the difference between a soft and a hard quota limit?",
        evidence_of(GRACE, LIMITS),
    )
    assert not draft.abstained
    quoted = [claim.text for claim in draft.claims]
    assert any(text.startswith("A hard limit can never be exceeded") for text in quoted), quoted
    assert any(text.startswith("A soft limit can be temporarily exceeded") for text in quoted)


LINKS = (
    "A hard link, as opposed to a symbolic link, cannot be differentiated from the "
    "linked file. Creating a hard link is essentially the same as giving an existing "
    "file a second name. It is interesting to note that, unlike a copy, the hard link "
    "does not take up additional space on the hard drive.\n\n"
    "A hard link is created with the ln target link command. Hard links can only be "
    "created on the same filesystem, while symbolic links are not subject to this "
    "limitation."
)
DRIVES = (
    "It is not always easy to remember what disk is connected to which SATA "
    "controller, especially since the naming of hotplugged hard drives can change from "
    "one boot to another. Fortunately, udev creates, in addition to /dev/sd*, symbolic "
    "links with a fixed name, which you could then use if you wished to identify a hard "
    "drive in a non-ambiguous manner. These symbolic links are stored in /dev/disk/by-id/."
)


def test_a_sentence_that_sets_both_against_each_other_answers() -> None:
    """ "…, while symbolic links are not subject to this limitation" compares the two: the
    answer is not replaced by a sentence on hard drives and one on udev's symbolic
    links from another passage (a red-team pass)."""
    draft = ExtractiveGenerator().generate(
        "What is the difference between a hard link and a symbolic link?",
        evidence_of(LINKS, DRIVES),
    )
    assert not draft.abstained
    quoted = [claim.text for claim in draft.claims]
    assert any("while symbolic links are not subject" in text for text in quoted), quoted
    assert not any("SATA" in text for text in quoted), quoted
