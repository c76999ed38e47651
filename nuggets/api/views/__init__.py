"""REST endpoints of the nuggets app, one module a resource: RAG run upload (``runs``),
nugget editing (``nugget_lists``), labels (``labels``), scores (``scores``), adjudication of
disputed labels (``adjudication``) and publication of the scores (``publication``)."""
