from tests.webapp.moderation.test_queue import *
def test_x(three, login, client):
    login("chief_editor")
    r = client.post(f"/editor/questions/{three[0].id}/reveal")
    page = r.get_data(as_text=True)
    print(r.status_code, page[page.find("Авторы"):page.find("Авторы")+400])
    assert 0
