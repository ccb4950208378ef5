"""plumbline.server"""
