"""The tool-API operator library, three families of environment change (each in its own module).

- information access (:mod:`.tool_access`): pages, a retired search, facts moved into attachments,
  encoded fields, listings of summaries;
- resource relations (:mod:`.tool_relations`): superseded copies, stale revisions, alias ids, archived
  records, parties named by directory ids;
- execution dependencies (:mod:`.tool_execution`): tokens, sessions, call quotas, export jobs, repairs.

Every change is made through middleware, added tools and new fixture collections, so the records that
graders read keep their collections, fields and values.
"""

from __future__ import annotations

from res_repro.res.operators.base import Operator
from res_repro.res.operators.tool_access import (
    EncodeField,
    MoveToAttachment,
    Paginate,
    RetireSearch,
    SummaryListing,
)
from res_repro.res.operators.tool_execution import (
    AsyncExport,
    CallQuota,
    OpenSession,
    RepairFirst,
    RequireToken,
)
from res_repro.res.operators.tool_relations import (
    AliasIds,
    ArchiveRecords,
    PartyReferences,
    StaleRevisions,
    SupersededCopies,
)

TOOL_OPERATORS: tuple[Operator, ...] = (
    Paginate(),
    RetireSearch(),
    MoveToAttachment(),
    EncodeField(),
    SummaryListing(),
    SupersededCopies(),
    StaleRevisions(),
    AliasIds(),
    ArchiveRecords(),
    PartyReferences(),
    RequireToken(),
    OpenSession(),
    CallQuota(),
    AsyncExport(),
    RepairFirst(),
)

__all__ = [
    "TOOL_OPERATORS",
    "AliasIds",
    "ArchiveRecords",
    "AsyncExport",
    "CallQuota",
    "EncodeField",
    "MoveToAttachment",
    "OpenSession",
    "Paginate",
    "PartyReferences",
    "RepairFirst",
    "RequireToken",
    "RetireSearch",
    "StaleRevisions",
    "SummaryListing",
    "SupersededCopies",
]
