import factory
from django.utils import timezone

from pooling.models import Contribution, Hit, PoolItem, Run, RunRow, Team
from tests.factories.collection import RetrievalTaskFactory, TopicFactory


class TeamFactory(factory.django.DjangoModelFactory[Team]):
    class Meta:
        model = Team

    name = factory.Sequence(lambda n: f"Team{n}")


class RunFactory(factory.django.DjangoModelFactory[Run]):
    class Meta:
        model = Run

    task = factory.SubFactory(RetrievalTaskFactory)
    team = factory.SubFactory(TeamFactory)
    tag = factory.Sequence(lambda n: f"run{n}")
    role = Run.Role.PRIMARY
    uploaded_at = factory.LazyFunction(timezone.now)


class RunRowFactory(factory.django.DjangoModelFactory[RunRow]):
    class Meta:
        model = RunRow

    run = factory.SubFactory(RunFactory)
    topic = factory.SubFactory(TopicFactory)
    post_id = factory.Sequence(lambda n: 500000 + n)
    rank = factory.Sequence(lambda n: n + 1)
    score = factory.LazyAttribute(lambda row: 1.0 / row.rank)


class PoolItemFactory(factory.django.DjangoModelFactory[PoolItem]):
    class Meta:
        model = PoolItem

    topic = factory.SubFactory(TopicFactory)
    post_id = factory.Sequence(lambda n: 500000 + n)
    key = factory.LazyAttribute(lambda item: str(item.post_id))
    display_order = factory.Sequence(lambda n: n)


class ContributionFactory(factory.django.DjangoModelFactory[Contribution]):
    class Meta:
        model = Contribution

    item = factory.SubFactory(PoolItemFactory)
    run = factory.SubFactory(RunFactory)
    rank = 1


class HitFactory(factory.django.DjangoModelFactory[Hit]):
    class Meta:
        model = Hit

    item = factory.SubFactory(PoolItemFactory)
    post_id = factory.LazyAttribute(lambda hit: hit.item.post_id)
