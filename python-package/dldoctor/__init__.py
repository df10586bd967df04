"""dldoctor: the `dldoctor` binary, installed into this environment's scripts folder.

Run it as `dldoctor ...` or `python -m dldoctor ...`.
"""
