"""The 500 page needs nothing that can fail: no database (blocked here), no user, no URLconf."""

from django.test import RequestFactory
from django.views.defaults import server_error


def test_server_error_page_renders_in_the_layout_when_the_database_is_out_of_reach() -> None:
    response = server_error(RequestFactory().get("/assess/1/2/"))
    assert response.status_code == 500
    html = response.content.decode()
    assert "Something went wrong on our side" in html
    assert 'class="topbar"' in html
    assert 'href="/static/css/app.css"' in html
