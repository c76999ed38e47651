import factory
from django.contrib.auth.models import User

from collection.models import (
    Campaign,
    Comment,
    Document,
    DocumentCollection,
    Formula,
    Post,
    RetrievalTask,
    Thread,
    Topic,
)


class UserFactory(factory.django.DjangoModelFactory[User]):
    class Meta:
        model = User
        django_get_or_create = ("username",)

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("secret-pass-123")


class CampaignFactory(factory.django.DjangoModelFactory[Campaign]):
    class Meta:
        model = Campaign

    name = factory.Sequence(lambda n: f"Campaign-{n}")


class RetrievalTaskFactory(factory.django.DjangoModelFactory[RetrievalTask]):
    class Meta:
        model = RetrievalTask

    campaign = factory.SubFactory(CampaignFactory)
    kind = RetrievalTask.Kind.ANSWER
    name = factory.LazyAttribute(lambda task: str(task.kind))


class TopicFactory(factory.django.DjangoModelFactory[Topic]):
    class Meta:
        model = Topic

    task = factory.SubFactory(RetrievalTaskFactory)
    number = factory.Sequence(lambda n: f"A.{n + 1}")
    title = factory.Sequence(lambda n: f"Topic title {n}")
    question = "<p>Why is $x^2 \\geq 0$?</p>"
    tags = factory.LazyFunction(lambda: ["algebra"])


class ThreadFactory(factory.django.DjangoModelFactory[Thread]):
    class Meta:
        model = Thread

    id = factory.Sequence(lambda n: 1000 + n * 10)
    title = factory.Sequence(lambda n: f"Thread {n}")


class PostFactory(factory.django.DjangoModelFactory[Post]):
    class Meta:
        model = Post

    id = factory.Sequence(lambda n: 500000 + n)
    thread = factory.SubFactory(ThreadFactory)
    kind = Post.Kind.ANSWER
    body = "<p>Because squares are nonnegative: $x^2 = x \\cdot x$.</p>"
    score = 1


class CommentFactory(factory.django.DjangoModelFactory[Comment]):
    class Meta:
        model = Comment

    id = factory.Sequence(lambda n: 900000 + n)
    post = factory.SubFactory(PostFactory)
    text = "Nice answer."


class FormulaFactory(factory.django.DjangoModelFactory[Formula]):
    class Meta:
        model = Formula

    formula_id = factory.Sequence(lambda n: 700000 + n)
    post = factory.SubFactory(PostFactory)
    thread = factory.SelfAttribute("post.thread")
    location = Formula.Location.ANSWER
    latex = "x^2"
    visual_id = factory.Sequence(lambda n: str(300000 + n))


class DocumentCollectionFactory(factory.django.DjangoModelFactory[DocumentCollection]):
    class Meta:
        model = DocumentCollection
        django_get_or_create = ("name",)

    name = factory.Sequence(lambda n: f"docs-{n}")


class DocumentFactory(factory.django.DjangoModelFactory[Document]):
    class Meta:
        model = Document

    collection = factory.SubFactory(DocumentCollectionFactory)
    docno = factory.Sequence(lambda n: f"DOC-{n:06d}")
    title = factory.Sequence(lambda n: f"Document {n}")
    body = "A plain-text document.\n\nIt has two paragraphs."
    body_format = Document.BodyFormat.TEXT
    checksum = factory.Sequence(lambda n: f"{n:032x}")
