import factory

from assessment.core.guidelines import scale_as_json
from assessment.core.guidelines_defaults import default_guidelines
from assessment.models import Adjudication, Assignment, Judgment, TaskGuidelines, TrainingRound
from tests.factories.collection import RetrievalTaskFactory, TopicFactory, UserFactory
from tests.factories.pooling import HitFactory


class TrainingRoundFactory(factory.django.DjangoModelFactory[TrainingRound]):
    class Meta:
        model = TrainingRound

    task = factory.SubFactory(RetrievalTaskFactory)
    name = factory.Sequence(lambda n: f"Round {n + 1}")
    gold_source = TrainingRound.GoldSource.QRELS


class AssignmentFactory(factory.django.DjangoModelFactory[Assignment]):
    class Meta:
        model = Assignment

    topic = factory.SubFactory(TopicFactory)
    assessor = factory.SubFactory(UserFactory)
    purpose = Assignment.Purpose.OFFICIAL


class JudgmentFactory(factory.django.DjangoModelFactory[Judgment]):
    class Meta:
        model = Judgment

    assignment = factory.SubFactory(AssignmentFactory)
    hit = factory.SubFactory(HitFactory, item__topic=factory.SelfAttribute("...assignment.topic"))
    assessor = factory.SelfAttribute("assignment.assessor")
    grade = 2


class AdjudicationFactory(factory.django.DjangoModelFactory[Adjudication]):
    class Meta:
        model = Adjudication

    hit = factory.SubFactory(HitFactory)
    grade = 2
    decided_by = factory.SubFactory(UserFactory, is_staff=True)


class TaskGuidelinesFactory(factory.django.DjangoModelFactory[TaskGuidelines]):
    """A saved guidelines version (the answer defaults unless ``scale`` is given); tests of
    the organizer's path save through assessment.services.guidelines.guidelines_save."""

    class Meta:
        model = TaskGuidelines

    task = factory.SubFactory(RetrievalTaskFactory)
    version = factory.Sequence(lambda n: n + 1)
    instructions = "Judge by the topic."
    scale = factory.LazyFunction(lambda: scale_as_json(default_guidelines("answer").scale))
