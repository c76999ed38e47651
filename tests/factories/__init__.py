"""factory_boy factories for every model: ``from tests.factories import HitFactory``."""

from tests.factories.assessment import (
    AdjudicationFactory,
    AssignmentFactory,
    JudgmentFactory,
    TaskGuidelinesFactory,
    TrainingRoundFactory,
)
from tests.factories.collection import (
    CampaignFactory,
    CommentFactory,
    DocumentCollectionFactory,
    DocumentFactory,
    FormulaFactory,
    PostFactory,
    RetrievalTaskFactory,
    ThreadFactory,
    TopicFactory,
    UserFactory,
)
from tests.factories.pooling import (
    ContributionFactory,
    HitFactory,
    PoolItemFactory,
    RunFactory,
    RunRowFactory,
    TeamFactory,
)

__all__ = [
    "AdjudicationFactory",
    "AssignmentFactory",
    "CampaignFactory",
    "CommentFactory",
    "ContributionFactory",
    "DocumentCollectionFactory",
    "DocumentFactory",
    "FormulaFactory",
    "HitFactory",
    "JudgmentFactory",
    "PoolItemFactory",
    "PostFactory",
    "RetrievalTaskFactory",
    "RunFactory",
    "RunRowFactory",
    "TaskGuidelinesFactory",
    "TeamFactory",
    "ThreadFactory",
    "TopicFactory",
    "TrainingRoundFactory",
    "UserFactory",
]
