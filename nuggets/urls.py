"""Pages of the nuggets app."""

app_name = "nuggets"

urlpatterns: list = []
