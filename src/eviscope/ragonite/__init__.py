"""RAGONITE in the suite: evidence contextualization, the ConfQuestions adapter and its retrieval
ablation, and counterfactual attribution (contract §7).

Modules: ``contextualize`` (the context transform), ``confquestions`` (a user's copy of ConfQuestions
turned into evidence units), ``retrieval`` (BM25, dense, reciprocal rank fusion), ``ablation`` (the
P@1 ablation of ``eviscope confquestions ablation``), ``attribution`` (counterfactual and naive
attribution, scored against evidence-level gold).
"""
